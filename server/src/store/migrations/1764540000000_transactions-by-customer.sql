-- Up Migration
-- The dashboard's customer page lists the customer's charges newest first, and its search box
-- finds a payer's charges by document through the customer kept for it (issue 26). A customer id
-- (`cus_…`) belongs to one account and mode, so it leads the index alone.
CREATE INDEX transactions_by_customer ON transactions ((customer ->> 'id'), created_at DESC, id DESC);

-- Down Migration
DROP INDEX transactions_by_customer;
