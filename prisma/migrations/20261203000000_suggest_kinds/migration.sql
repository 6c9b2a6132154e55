-- Kinds in the type-ahead (issue 28 item 4: "ban" gave band aid, banana boat and Banner Foil, no
-- fresh bananas): the curated kinds (src/domain/kinds.ts) are suggested with the chains'
-- categories, counted by the listings they hold, so the type-ahead view (workers/views/suggest.ts)
-- keeps one row per kind label beside the category and brand rows. For a kind, `parent` is the
-- suggestion's detail: the shelf the kind is on, NULL when that shelf is the kind itself.
ALTER TABLE suggest_term DROP CONSTRAINT IF EXISTS suggest_term_kind_check;
ALTER TABLE suggest_term ADD CONSTRAINT suggest_term_kind_check CHECK (kind IN ('category', 'kind', 'brand'));
