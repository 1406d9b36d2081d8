-- Least privilege: nothing here is anyone's but the owner's until granted (docs/security.md has the grant scripts).
-- Writers need no right at all: the capture and target triggers run SECURITY DEFINER.
REVOKE ALL ON SCHEMA countercache FROM PUBLIC;
REVOKE ALL ON ALL TABLES IN SCHEMA countercache FROM PUBLIC;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA countercache FROM PUBLIC;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA countercache FROM PUBLIC;
REVOKE ALL ON ALL PROCEDURES IN SCHEMA countercache FROM PUBLIC;
