import { beforeAll, describe, expect, it } from 'vitest';
import { contentIdKey, sanitiseMailHtml, urlForCheck } from '../../workers/mail/src/html-mail';
import { type StandinMailbox, type TestSession, connectedMailbox, control, send } from './helpers';

// HTML mail as the reading pane's frame shows it: the sanitiser (workerd's HTMLRewriter) and the
// /api/email/{id}/html route with its sandbox policy, inline cid: images and remote images on request.

const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const clean = async (html: string, options?: Parameters<typeof sanitiseMailHtml>[1]) => (await sanitiseMailHtml(html, options)).html;

describe('sanitiseMailHtml', () => {
  it('drops what runs, embeds, submits or redirects, keeping the text around it', async () => {
    const result = await sanitiseMailHtml(
      `<html><head><meta http-equiv="refresh" content="0;url=https://evil.test/"><base href="https://evil.test/"><link rel=stylesheet href="https://evil.test/a.css"><title>T</title></head>
       <body onload="x()"><script>alert(1)</script><p onclick="x()" onmouseover='y()' OnError=z>Hello <b>there</b></p>
       <iframe srcdoc="<script>x()</script>"></iframe><object data="a.swf"></object><embed src="a.swf"><svg onload="x()"><script>x()</script></svg>
       <form action="https://evil.test/steal" method=post><input name=p formaction="https://evil.test/"><button>Send</button></form></body></html>`,
    );
    expect(result.asText).toBe(false);
    const out = result.html;
    for (const gone of [
      '<script',
      '<iframe',
      '<object',
      '<embed',
      '<svg',
      '<form',
      '<meta',
      '<base',
      '<link',
      '<title',
      'srcdoc',
      'formaction',
      'action=',
      '<html',
      '<body',
    ]) {
      expect(out.toLowerCase(), gone).not.toContain(gone);
    }
    expect(out).not.toMatch(/\son[a-z]+\s*=/i);
    expect(out).toContain('Hello <b>there</b>');
    // A form's controls stay as inert text; the form itself is gone.
    expect(out).toContain('<button>Send</button>');
  });

  it('leaves nothing that runs whatever the markup, showing what the streaming parser cannot place as escaped text', async () => {
    const tricky = [
      '<frameset><frame src="https://evil.test/"></frameset>',
      '<template><script>x()</script></template>',
      '<noscript><img src=x onerror=x()></noscript>',
      '<!--[if IE]><script>x()</script><![endif]-->',
      '<select><script>x()</script></select>',
      '<math><mi><style>p{}</style></mi></math><script>x()</script>',
      '<table><script>x()</script><tr><td onclick=x()>cell</td></tr></table>',
      `<frameset><frame src=a></frameset><object data="a.swf"></object><svg onload="x()"><script>x()</script></svg><math><mi>x</mi></math>
       <template><script>x()</script></template><noscript><img src=x onerror=x()></noscript><!--[if IE]><script>x()</script><![endif]-->`,
    ];
    const results = await Promise.all(tricky.map((t) => sanitiseMailHtml(`<p>Fees due</p>${t}`)));
    for (const [i, result] of results.entries()) {
      expect(result.html, tricky[i]).not.toMatch(/<(script|frame|iframe|object|svg)\b/i);
      expect(result.html, tricky[i]).not.toMatch(/\son[a-z]+\s*=/i);
      expect(result.html, tricky[i]).toContain('Fees due');
      if (result.asText) expect(result.html, tricky[i]).toMatch(/^<pre>[^<]*<\/pre>$/);
    }
    // The last one is beyond a single streaming pass: shown as text, never a failure.
    expect(results.at(-1)!.asText).toBe(true);
  });

  it('keeps http(s), mailto and fragment links, opening in a new tab without opener; drops script, data and relative links', async () => {
    const out = await clean(
      [
        '<a id=a href="https://racing.test/results">ok</a>',
        '<a id=b href="mailto:office@racing.test">mail</a>',
        '<a id=c href="#top">top</a>',
        '<a id=d href="javascript:alert(1)">js</a>',
        '<a id=e href="  JaVaScRiPt:alert(1)">js2</a>',
        '<a id=f href="jav&#x61;script:alert(1)">js3</a>',
        '<a id=g href="java&#9;script:alert(1)">js4</a>',
        '<a id=h href="javascript&colon;alert(1)">js5</a>',
        '<a id=i href="data:text/html,<script>alert(1)</script>">data</a>',
        '<a id=j href="/logout">own path</a>',
        '<a id=k href="vbscript:msgbox(1)">vb</a>',
        '<a id=l href="jav&unknown;ascript:x">odd</a>',
        '<a id=m href="https://racing.test/" target="_self" rel="opener">t</a>',
      ].join(''),
    );
    const hrefs = Object.fromEntries(
      [...out.matchAll(/<a id="?(\w)"?([^>]*)>/g)].map((m) => [m[1], /href="([^"]*)"/.exec(m[2]!)?.[1] ?? null]),
    );
    expect(hrefs).toEqual({
      a: 'https://racing.test/results',
      b: 'mailto:office@racing.test',
      c: '#top',
      d: null,
      e: null,
      f: null,
      g: null,
      h: null,
      i: null,
      j: null,
      k: null,
      l: null,
      m: 'https://racing.test/',
    });
    for (const [, attrs] of out.matchAll(/<a ([^>]*)>/g)) {
      expect(attrs).toContain('target="_blank"');
      expect(attrs).toContain('rel="noopener noreferrer"');
    }
    expect(out).not.toContain('_self');
  });

  it('resolves cid: images, leaves remote images out unless allowed, keeps data: images and drops other image schemes', async () => {
    const inline = new Map([[contentIdKey('<logo@racing.test>'), `data:image/png;base64,${PIXEL}`]]);
    const html =
      '<img id=cid src="cid:logo@racing.test"><img id=missing src="cid:nope@x"><img id=remote src="https://images.test/a.png"><td background="http://images.test/bg.png"></td><img id=data src="data:image/png;base64,AAAA"><img id=svg src="data:image/svg+xml;base64,PHN2Zz4="><img id=js src="javascript:x"><img srcset="https://images.test/a.png 2x" src="cid:LOGO@racing.test">';
    const blocked = await sanitiseMailHtml(html, { inline });
    expect(blocked.html).toContain(`<img id=cid src="data:image/png;base64,${PIXEL}">`);
    expect(blocked.html).not.toContain('images.test');
    expect(blocked.html).toContain('src="data:image/png;base64,AAAA"');
    expect(blocked.html).not.toContain('svg+xml');
    expect(blocked.html).not.toContain('javascript');
    expect(blocked).toMatchObject({ blockedImages: 2, missingInline: 1 });
    // Content ids compare without brackets and case: the last image is the logo too.
    expect(blocked.html.match(/data:image\/png;base64,iVBOR/g)).toHaveLength(2);

    const remote = await sanitiseMailHtml(html, { inline, images: 'remote' });
    expect(remote.html).toContain('src="https://images.test/a.png"');
    expect(remote.html).toContain('background="http://images.test/bg.png"');
    expect(remote.blockedImages).toBe(0);
  });

  it('unpins fixed and sticky positioning in style attributes and style elements, without letting a value break out of its attribute', async () => {
    const out = await clean(
      `<style>.a{position: fixed;inset:0}.b{POSITION:sticky}</style><div class="a" style="position:fixed;inset:0;z-index:99">x</div><div style='position:fixed" onclick="x()'>y</div>`,
    );
    expect(out).not.toMatch(/fixed|sticky/i);
    expect(out).toContain('.a{position:static;inset:0}');
    // The value stays one attribute: its quotes are written as &quot;.
    expect(out).toContain('<div style="position:static&quot; onclick=&quot;x()">y</div>');
  });

  it('reads attribute values as a browser does before the scheme check', () => {
    expect(urlForCheck(' j&#x61;va\tscript&colon;x')).toBe('javascript:x');
    expect(urlForCheck('&#106;&#97;vascript:x')).toBe('javascript:x');
    expect(contentIdKey('cid:%3Clogo@x%3E')).toBe('logo@x');
  });
});

describe('GET /api/email/{message_id}/html', () => {
  let box: StandinMailbox;
  let session: TestSession;
  const frame = (id: string, query = '', cookie = session.cookie) => send(`/api/email/${encodeURIComponent(id)}/html${query}`, { cookie });
  const deliver = async (input: Record<string, unknown>) =>
    (await control<{ value: { immutableId: string }[] }>(box, 'POST', '/deliver', input)).value[0]!.immutableId;

  beforeAll(async () => {
    ({ mailbox: box, session } = await connectedMailbox('html-mail'));
  });

  it('answers the sanitised body under a sandbox policy, with inline images and remote ones held back', async () => {
    const id = await deliver({
      subject: 'Sponsor newsletter',
      html: '<html><body><script>parent.x=1</script><p onclick="x()">News</p><img src="cid:banner@sponsor.test"><img src="https://images.test/track.gif"><a href="https://sponsor.test/">Sponsor</a></body></html>',
      attachments: [{ name: 'banner.png', contentType: 'image/png', contentBytes: PIXEL, contentId: '<banner@sponsor.test>' }],
    });
    const res = await frame(id);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp.split('; ')).toEqual(
      expect.arrayContaining([
        'sandbox allow-popups allow-popups-to-escape-sandbox',
        "default-src 'none'",
        'img-src data:',
        "style-src 'unsafe-inline'",
        "frame-ancestors 'self'",
      ]),
    );
    expect(csp).not.toMatch(/allow-scripts|allow-forms|allow-same-origin|https:/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await res.text();
    expect(html).toMatch(/^<!DOCTYPE html><html><head><meta charset="utf-8"><base target="_blank">/);
    expect(html).toContain(`src="data:image/png;base64,${PIXEL}"`);
    expect(html).not.toContain('track.gif');
    expect(html).not.toMatch(/<script|onclick/);
    expect(html).toContain('<a href="https://sponsor.test/" target="_blank" rel="noopener noreferrer">Sponsor</a>');

    const shown = await frame(id, '?images=remote');
    expect(shown.headers.get('content-security-policy')).toContain('img-src data: https:');
    expect(await shown.text()).toContain('src="https://images.test/track.gif"');
  });

  it('refuses bad input and callers without a session, and answers 404 for a message Graph does not have', async () => {
    expect((await frame('AAMk-no-such-message')).status).toBe(404);
    expect((await frame('bad id!')).status).toBe(400);
    const id = await deliver({ subject: 'x', html: '<p>x</p>' });
    expect((await frame(id, '?images=all')).status).toBe(400);
    expect((await frame(id, '', '')).status).toBe(401);
  });
});
