-- Typo tolerance by spelling correction (issue 31 item 2: "galic" ranked Royal Gala apples and
-- galaxy cheeses first, garlic sixth). The vocabulary of the catalogue: every word of a listing's
-- search_name (normalised brand + name) and every run-together pair of adjacent words of its
-- normalised name or brand ("peanutbutter" → "peanut butter"), letters only, with the listings
-- holding it. The embedded search backend (src/search/spelling.ts) replaces a query word that
-- matches no listing by the vocabulary entry within a small edit distance (fuzzystrmatch
-- levenshtein) sharing its first letter and length give or take the distance, the most frequent
-- first; (head, length) bounds the candidates a word is compared with. Written by the
-- derived-views worker with the type-ahead view (workers/views/suggest.ts).
CREATE EXTENSION IF NOT EXISTS fuzzystrmatch;

CREATE TABLE search_word (
  -- The word (or the pair run together), as search_normalize writes it; collation "C" so that
  -- the keys starting with a word are one range of the primary key.
  key      TEXT COLLATE "C" PRIMARY KEY,
  -- What the key stands for: the word itself, or the pair with its space.
  phrase   TEXT NOT NULL,
  -- Listings holding it.
  listings INTEGER NOT NULL,
  -- Its first character and its length in characters (the candidate bounds).
  head     TEXT NOT NULL,
  length   INTEGER NOT NULL
);
CREATE INDEX search_word_head_length_idx ON search_word (head, length);
