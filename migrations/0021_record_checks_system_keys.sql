-- What the last DNS check found at each of a domain's records (DKIM, SPF, DMARC): the TXT values
-- there, by kind, so a Domain shows each record's state (docs/decisions/domains.md).
ALTER TABLE domains ADD COLUMN record_checks jsonb;

-- The DKIM key of the server's own sending domain (SYSTEM_FROM, contract §6): made at the first
-- start-up that names the domain and kept, so every process and restart signs with the same key.
-- A rule of the deployment, not of a project: no project_id.
CREATE TABLE system_dkim_keys (
  domain text PRIMARY KEY,
  selector text NOT NULL,
  -- The DKIM `p=` value: base64 of the SubjectPublicKeyInfo DER.
  public_key text NOT NULL,
  -- PKCS#8 PEM, unencrypted like the domains' keys (docs/decisions/domains.md: key storage).
  private_key text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
