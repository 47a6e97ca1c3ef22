-- Story text search: an FTS5 trigram index over title and summary, with the stories table as its
-- external content. Story writes keep it in step in the same batch (workers/cms/src/story-writes.ts).
CREATE VIRTUAL TABLE `stories_search` USING fts5(title, summary, content='stories', content_rowid='id', tokenize='trigram');
--> statement-breakpoint
INSERT INTO `stories_search` (`stories_search`) VALUES ('rebuild');
