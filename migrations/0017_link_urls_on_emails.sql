-- The tracked URLs of a message move onto its email record (docs/decisions/links.md). As a table of
-- its own, each delivered chunk paid one more INSERT whose foreign-key check PostgreSQL had planned
-- while `emails` was still empty: a sequential scan of `emails` per row (262 ms per 100 messages in
-- the delivery bench, three quarters of the database's time). On the record, the list is written by
-- the hand-off statement the worker runs anyway, and a click reads the row it updates.
ALTER TABLE emails ADD COLUMN link_urls jsonb;

UPDATE emails AS e SET link_urls = l.urls
FROM email_links AS l
WHERE l.project_id = e.project_id AND l.email_id = e.id;

DROP TABLE email_links;
