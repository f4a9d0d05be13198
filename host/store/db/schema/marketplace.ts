// Schema v2, marketplace accounts: the customer accounts a marketplace partner manages through
// the Marketplace API, their product quantities, and the history the billing report reads.
// Every status and quantity change is kept with its time (never updated or deleted): the
// report for a past month is computed from it, so it does not change when accounts change later.
export const marketplaceSchema = `
CREATE TABLE marketplace_accounts (
  id INTEGER PRIMARY KEY,
  -- compared case-insensitively: A@x.io and a@x.io are one account
  email TEXT NOT NULL UNIQUE COLLATE NOCASE,
  model TEXT NOT NULL CHECK (model IN ('DEVICE', 'LOCATION')),
  account_status TEXT NOT NULL CHECK (account_status IN ('TRIAL', 'ACTIVE', 'SUSPENDED', 'TRIAL_EXPIRED')),
  country TEXT NOT NULL,
  first_name TEXT,
  last_name TEXT,
  city TEXT,
  state TEXT,
  company_name TEXT,
  phone TEXT,
  -- the agreement versions the customer accepted at creation
  privacy_policy TEXT NOT NULL,
  terms_and_conditions TEXT NOT NULL,
  creation_time INTEGER NOT NULL,
  end_of_trial_time INTEGER NOT NULL,
  last_status_change INTEGER NOT NULL
);

CREATE TABLE marketplace_products (
  account_id INTEGER NOT NULL REFERENCES marketplace_accounts(id) ON DELETE CASCADE,
  product TEXT NOT NULL CHECK (product IN ('TEAM_MEMBERS', 'AGENTS', 'MSP_INTEGRATIONS', 'MANAGED_DEVICES')),
  quantity INTEGER NOT NULL CHECK (quantity >= 0),
  -- fed by the embedding program (setMarketplaceUsage), never by the API
  used INTEGER NOT NULL DEFAULT 0 CHECK (used >= 0),
  PRIMARY KEY (account_id, product)
);

CREATE TABLE marketplace_status_changes (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES marketplace_accounts(id) ON DELETE CASCADE,
  time INTEGER NOT NULL,
  account_status TEXT NOT NULL
);
CREATE INDEX marketplace_status_changes_by_time ON marketplace_status_changes(account_id, time);

CREATE TABLE marketplace_quantity_changes (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES marketplace_accounts(id) ON DELETE CASCADE,
  time INTEGER NOT NULL,
  product TEXT NOT NULL,
  quantity INTEGER NOT NULL
);
CREATE INDEX marketplace_quantity_changes_by_time ON marketplace_quantity_changes(account_id, time);
`;
