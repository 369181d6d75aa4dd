-- Free space on each page of `emails` for in-place (HOT) updates: the hand-off statement of the
-- delivery worker changes no indexed column, so with room on the page PostgreSQL rewrites the row
-- there and adds nothing to the table's seven indexes (docs/decisions/sending.md). Pages written
-- from now on keep 25 % free; existing pages are left as they are until rewritten.
ALTER TABLE emails SET (fillfactor = 75);
