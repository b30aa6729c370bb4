-- Join limits and server-side trial timing (issue 15).

-- A pseudonym of the client address a participant joined from (a keyed
-- hash; '' for none): Join counts the places an address holds.
ALTER TABLE participants ADD join_addr TEXT NOT NULL DEFAULT '';
CREATE INDEX participants_addr ON participants (join_addr, status);

-- When the server last served the trial's image and mask, and why it did
-- not believe the client's timing claims ('' or NULL: plausible).
ALTER TABLE trials ADD stimulus_served {{.Time}};
ALTER TABLE trials ADD mask_served {{.Time}};
ALTER TABLE trials ADD implausible TEXT;
