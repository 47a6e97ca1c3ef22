const URL_ATTRIBUTE = /\s(?:href|src|action|formaction|poster|data-url|data-href|spec-url)\s*=\s*["']?(\/[^"'\s>]*)/gi;

/** Root-relative URLs in a page's start tags and inline scripts (the text between tags is not followed). */
export function rootRelativeUrls(html: string): string[] {
  const inTags = [...html.matchAll(/<[a-zA-Z][^>]*>/g)].flatMap(([tag]) => [...tag.matchAll(URL_ATTRIBUTE)].map((m) => m[1]!));
  const inScripts = [...html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/gi)].flatMap(([, body]) =>
    [...body!.matchAll(/["'`](\/(?!\/)[^"'`\s]*)["'`]/g)].map((m) => m[1]!),
  );
  return [...inTags, ...inScripts];
}
