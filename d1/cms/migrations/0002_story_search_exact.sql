-- Story search decided by the index alone. The index now holds each story's title and summary as
-- SQLite's lower() gives them (the view below is its external content) and its trigram tokenizer is
-- case-sensitive, so the phrase of the lowered term matches exactly the stories whose lowered text
-- contains the term: the `instr(lower(…), lower(…))` rule, without reading any story row to check.
-- The (id, published_at, updated_at) index lets the matches be counted and put in date order
-- without reading the story rows either.
DROP TABLE `stories_search`;
--> statement-breakpoint
CREATE VIEW `stories_search_text` AS SELECT `id`, lower(`title`) AS `title`, lower(`summary`) AS `summary` FROM `stories`;
--> statement-breakpoint
CREATE VIRTUAL TABLE `stories_search` USING fts5(title, summary, content='stories_search_text', content_rowid='id', tokenize='trigram case_sensitive 1');
--> statement-breakpoint
INSERT INTO `stories_search` (`stories_search`) VALUES ('rebuild');
--> statement-breakpoint
CREATE INDEX `stories_id_dates` ON `stories` (`id`,`published_at`,`updated_at`);
