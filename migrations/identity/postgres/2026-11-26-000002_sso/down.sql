DROP TABLE authorization_codes;
DROP TABLE users;
DROP TABLE partner_redirect_uris;
DROP TABLE partners;
