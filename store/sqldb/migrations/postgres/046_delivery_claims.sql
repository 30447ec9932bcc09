-- PostgreSQL form of ../046_delivery_claims.sql (keep the two in step).
-- A delivery claimed for an attempt names the node that claimed it, so that a node restarted
-- after a crash (or the node that takes over a stopped one) hands back at once what it had
-- claimed and not attempted, instead of waiting out the claim's lease.
ALTER TABLE deliveries ADD COLUMN claimed_by TEXT;
