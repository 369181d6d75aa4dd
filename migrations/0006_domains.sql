-- Sender domains with their DKIM keys (contract §7; docs/decisions/domains.md).

CREATE TABLE domains (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  -- Lower-case ASCII (IDNs as punycode), no trailing dot.
  domain text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'verified')),
  selector text NOT NULL,
  -- The DKIM `p=` value: base64 of the SubjectPublicKeyInfo DER.
  public_key text NOT NULL,
  -- PKCS#8 PEM, stored unencrypted (docs/decisions/domains.md: key storage). Never returned.
  private_key text NOT NULL,
  verified_at timestamptz,
  last_checked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, id),
  CONSTRAINT domains_project_domain_key UNIQUE (project_id, domain)
);

-- A domain is verified in at most one project (contract §7: a domain verified elsewhere is a 409).
-- The one key that cannot start with project_id: it is a rule across projects by nature.
CREATE UNIQUE INDEX domains_verified_domain_key ON domains (domain) WHERE status = 'verified';
