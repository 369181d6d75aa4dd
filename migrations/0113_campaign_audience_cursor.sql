-- How far a campaign's audience has been fixed (docs/decisions/campaigns.md, "Sending"): the start
-- job makes the records in batches of contacts in id order, one transaction each, and stores the
-- last contact id of each batch here with it; after a crash the next run resumes past it.
ALTER TABLE campaigns ADD COLUMN audience_fixed_through uuid;
