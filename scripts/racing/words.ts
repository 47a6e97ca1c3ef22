// Word lists the generator builds names from.

export const GIVEN_NAMES: readonly string[] = `
James John Michael David Chris Mark Peter Paul Andrew Daniel Matthew Ben Luke Sam Tom Nathan Jason Craig
Glen Brett Damien Shane Dean Todd Wayne Blake Corey Tommy Tim Jamie Rachel Kathy Kerry Tyler Zac Jack Josh
Dylan Kyle Ryan Adam Brad Jake Liam Harry Ethan Mitchell Rhys Billy Jordan Cameron Aaron Troy Darren Gavin
Lee Kevin Neville Gerald Bruce Lindsay Leon Anthony Robert Richard Stephen Gary Ken Colin Ross Warren Grant
Stuart Scott Robbie Jimmy Danny Joe Frank Henry Ollie Ned Jessica Emma Sarah Kate Jess Chelsea Alana Rebecca
Lauren Tegan Amy Rochelle Laura Beth Sophie Georgia Madeline Holly Rose Olivia Chloe Kayla Jade Bella
Ashleigh Leah Nikita Zoe Paige Brittany Molly Ellen Clare Annabel Lucy Kirsten Anna Natalie Fiona Jenny
Wendy Rosie Hayley Declan Ricky Patrick Reece Jarrod Heath Brock Carl Shannon Bailey Noah Oscar Archie
Leo Hamish Angus Fraser Callum Connor Eli Felix Gus Isaac Jasper Kai Lachlan Max Miles Owen Quinn Toby
`
  .trim()
  .split(/\s+/);

export const FAMILY_NAMES: readonly string[] = `
Smith Jones Williams Brown Wilson Taylor Johnson White Martin Anderson Thompson Nguyen Thomas Walker Harris
Lee Ryan Robinson Kelly King Davis Wright Evans Roberts Green Hall Wood Jackson Clarke Patel Khan Lewis James
Phillips Mitchell Turner Hughes Edwards Baker Campbell Parker Collins Stewart Morris Murphy Cook Rogers Murray
Morgan Cooper Richardson Bell Ward Watson Hill Young Scott Moore Allen Carter Adams Cox Harvey Graham Marshall
Kennedy Bennett Gray Russell Chapman Hunt Ellis Reid Webb Simpson Mills Holmes Grant Lloyd Mason Rose Hayes
Payne Dixon Hunter Burke Gordon Sullivan Henderson Sutherland Dunn Ross Ferguson Fraser Hamilton McDonald
Lane Allen Dee Brown Clark Parr Thornton Collett McNeil Callow Tarrant Currie Cartwright McGregor Newitt
Bayliss Penfold Whitworth Lindsay Fawcett Doyle Brennan Quinn Gallagher Fitzgerald Nolan Byrne Walsh OBrien
Keane Duffy Doherty Moran Lynch Healy Costello Corcoran Flanagan Hogan Cahill Donnelly Malone Petrov Rossi
Ricci Romano Costa Ferrari Esposito Bianchi Russo Greco Marino Conti Gallo Mancini Lombardi Chen Wang Zhang
Liu Yang Huang Zhao Wu Zhou Xu Tan Lim Ng Wong Chan Singh Kaur Sharma Kumar Gupta Henare Parata Tamihana
Ngata Walters Harrison Bishop Fisher Lowe Barker Day Field Ford Stone Booth Lamb Atkins Bishop Blackwood
Bradley Burton Carroll Crawford Dawson Elliott Fleming Foster Gibson Hardy Hart Holland Jenkins Knight
Lawson Lucas Matthews Nicholls Norton Osborne Palmer Pearce Porter Powell Reynolds Riley Saunders Shaw
Spencer Stevens Sharp Tucker Wallace Warner Watts Wheeler Willis Woods Yates Abbott Ashby Beck Bird Blair
`
  .trim()
  .split(/\s+/);

/** First words of horse names. */
export const HORSE_NAME_LEADS: readonly string[] = `
Golden Silver Royal Bold Brave Quick Swift Wild Lucky Mighty Dark Bright Silent Secret Hidden Rapid Noble
Grand Little Big Super Sweet Lady Miss Sir Lord King Queen Prince Princess Captain Major General Doctor
Mister Master Saint Black Red Blue Green White Scarlet Crimson Amber Ruby Jade Ivory Copper Iron Steel
Stormy Sunny Misty Windy Rainy Frosty Blazing Flying Dancing Roaring Rolling Racing Shining Spinning
Whispering Thundering Galloping Soaring Rising Falling Running Dashing Daring Fearless Reckless Restless
Endless Timeless Magic Mystic Cosmic Atomic Electric Sonic Turbo Hyper Ultra Mega Alpha Omega Delta
Northern Southern Eastern Western Coastal Outback Desert Ocean River Mountain Valley Island Harbour
Midnight Morning Evening Winter Summer Autumn Spring Lunar Solar Stellar Astral Eternal Infinite
Classic Vintage Modern Urban Rustic Gentle Stately Elegant Regal Gallant Valiant Daring Lusty Merry
Happy Jolly Cheeky Sneaky Saucy Zippy Snappy Dizzy Fizzy Jazzy Rocky Sandy Dusty Smoky Cloudy
Savage Fierce Proud Humble Lonely Clever Wise Smart Sharp Keen Eager Ready Steady Lively Sprightly
Highland Lowland Kingly Manly Sassy Classy Flashy Dapper Nifty Plucky Feisty Spirited Tempest
`
  .trim()
  .split(/\s+/);

/** Second words of horse names (also used alone after a lead). */
export const HORSE_NAME_TAILS: readonly string[] = `
Star Storm Wind Fire Flame Spark Thunder Lightning Rain Cloud Sky Moon Sun Dawn Dusk Night Shadow Dream
Spirit Ghost Legend Hero Warrior Knight Soldier Ranger Hunter Archer Rider Runner Dancer Singer Drifter
Rebel Rogue Bandit Outlaw Pirate Raider Ruler Emperor Empress Duke Duchess Baron Count Sultan Pharaoh
Tiger Lion Eagle Hawk Falcon Raven Phoenix Dragon Wolf Fox Bear Panther Cobra Viper Stallion Mustang
Bullet Arrow Rocket Comet Meteor Blaze Bolt Flash Dash Sprint Charge Rush Surge Strike Force Power
Diamond Pearl Jewel Gem Crystal Emerald Sapphire Treasure Fortune Gold Silver Coin Crown Sceptre Throne
Rose Lily Orchid Daisy Violet Jasmine Magnolia Wattle Banksia Acacia Willow Cedar Oak Maple Ember
Ocean Tide Wave River Creek Lake Harbour Reef Island Canyon Summit Ridge Valley Meadow Prairie Forest
Melody Rhythm Harmony Symphony Ballad Anthem Chorus Lyric Tango Waltz Rumba Salsa Jive Boogie Swing
Journey Voyage Quest Venture Mission Promise Secret Whisper Echo Mirage Illusion Wonder Marvel Miracle
Victory Triumph Glory Honour Valour Courage Pride Justice Liberty Freedom Destiny Karma Fate Chance
Bay Chestnut Grey Roan Pinto Filly Colt Maverick Jackpot Bonanza Windfall Payday Dividend Quinella
Express Flyer Cruiser Voyager Pioneer Explorer Navigator Pilot Skipper Commander Admiral Sergeant
Charm Grace Beauty Belle Diva Muse Siren Angel Saint Sinner Joker Jester Wizard Sorcerer Oracle Prophet
Kiss Smile Laugh Wink Giggle Hug Cuddle Heart Soul Mind Vision Notion Theory Logic Riddle Puzzle Enigma
Boots Spurs Saddle Bridle Stirrup Whip Paddock Stable Barn Ranch Station Outback Billabong Bushranger
Larrikin Swagman Jackaroo Digger Cobber Battler Stockman Drover Shearer Squatter Bunyip Brumby
`
  .trim()
  .split(/\s+/);

export const SIRES: readonly string[] = [
  'I Am Invincible',
  'Snitzel',
  'Written Tycoon',
  'Zoustar',
  'Capitalist',
  'Fastnet Rock',
  'Not A Single Doubt',
  'Exceed And Excel',
  'Street Boss',
  'Pierro',
  'Deep Field',
  'So You Think',
  'Savabeel',
  "Redoute's Choice",
  'Dundeel',
  'Sebring',
  'Hinchinbrook',
  'Toronado',
  'Extreme Choice',
  'Star Turn',
  'Spirit Of Boom',
  'Shamus Award',
  'Pride Of Dubai',
  'Sooboog',
  'Choisir',
  'Lonhro',
  'Stratum',
  'Smart Missile',
  'Nicconi',
  'Your Song',
  'Sizzling',
  'Rubick',
  'Brazen Beau',
  'Too Darn Hot',
  'Frankel',
  'Dubawi',
  'Sea The Stars',
  'Galileo',
  'Kingman',
  'Lope De Vega',
  'Into Mischief',
  'Justify',
  'Deep Impact',
  'Lord Kanaloa',
  'Per Incanto',
  'Proisir',
  'Tavistock',
  'Ocean Park',
  'Super Seth',
  'Nature Strip',
  'Trapeze Artist',
  'Microphone',
  'Russian Revolution',
  'Hellbent',
  'Sessions',
  'Blue Point',
  'Churchill',
  'Ribchester',
  'Harry Angel',
  'Vancouver',
  'Headwater',
  'Bivouac',
  'Castelvecchio',
  'Farnan',
  'Shalaa',
  'Magna Grecia',
  'Ardrossan',
];

/** Places and words that stud farms are named after. */
export const STUD_NAME_WORDS: readonly string[] = `
Glenbrook Riverside Hillview Blue Gum Kurrajong Ironbark Wattle Creek Yarra Hunter Valley Ridgeway
Greenhills Stonehaven Brookfield Oakridge Willowbank Rosewood Cedar Grove Highfield Fernleigh Ashgrove
Bellevue Clearwater Redgum Kingsley Summerhill Eastwood Westbury Northgate Southwind Pinecrest Lakeside
Meadowbrook Silverdale Goldfield Emerald Bayview Hawthorn Kensington Mayfield Oakvale Thornbury
`
  .trim()
  .split(/\s+/);

export const STUD_SUFFIXES: readonly string[] = ['Stud', 'Farm', 'Park', 'Thoroughbreds', 'Bloodstock', 'Lodge'];

/** What a local sponsor of a race does, e.g. "Murphy Transport Handicap". */
export const SPONSOR_TRADES: readonly string[] = [
  'Transport',
  'Motors',
  'Real Estate',
  'Plumbing',
  'Electrical',
  'Earthmoving',
  'Stockfeeds',
  'Produce',
  'Hotel',
  'Bowls Club',
  'Builders',
  'Concreting',
  'Pharmacy',
  'Accountants',
  'Lawyers',
  'Insurance',
  'Saddlery',
  'Vets',
  'Farriers',
  'Fuels',
  'Tyres',
  'Homes',
  'Landscaping',
  'Roofing',
  'Engineering',
];

export const STAKES_NAMES: readonly string[] = [
  'Tulloch',
  'Phar Lap',
  'Bernborough',
  'Gunsynd',
  'Kingston Town',
  'Might And Power',
  'Sunline',
  'Makybe Diva',
  'Black Caviar',
  'Winx',
  'Carbine',
  'Peter Pan',
  'Tobin Bronze',
  'Vain',
  'Manikato',
  'Rain Lover',
  'Tranquil Star',
  'Flight',
  'Ajax',
  'Hill',
  'Theo Marks',
  'Silver Shadow',
  "Sires' Produce",
  'Champagne',
  'Memsie',
  'Feehan',
  'Underwood',
  'Turnbull',
  'Toorak',
  'Moir',
  'Crystal Mile',
  'Kingsford-Smith',
  'Stradbroke',
  'Doomben Roses',
  'Oakleigh Plate',
  'Newmarket',
  'Lightning',
  'Australian Guineas',
];

export const TRACK_CONDITIONS: readonly (readonly [condition: string, rating: number, weight: number])[] = [
  ['Firm 1', 1, 1],
  ['Firm 2', 2, 4],
  ['Good 3', 3, 15],
  ['Good 4', 4, 40],
  ['Soft 5', 5, 15],
  ['Soft 6', 6, 9],
  ['Soft 7', 7, 7],
  ['Heavy 8', 8, 5],
  ['Heavy 9', 9, 2],
  ['Heavy 10', 10, 1],
];
