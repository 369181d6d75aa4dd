-- Open and click tracking per project (contract §6): 'all' mail, 'marketing' mail only, or 'off'.
-- TRANSACTIONAL mail thus gets no open pixel by default.
ALTER TABLE projects
  ADD COLUMN tracking_opens text NOT NULL DEFAULT 'marketing' CHECK (tracking_opens IN ('all', 'marketing', 'off')),
  ADD COLUMN tracking_clicks text NOT NULL DEFAULT 'all' CHECK (tracking_clicks IN ('all', 'marketing', 'off'));
