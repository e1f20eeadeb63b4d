package api

import (
	"errors"
	"regexp"
)

// The password hashes an htpasswd object may hold: exactly those that Debian's nginx
// verifies. nginx checks $apr1$ and {SHA} itself (ngx_crypt.c) and hands anything else to
// crypt(3), which on Debian is libxcrypt; libxcrypt 4.4 verifies bcrypt ($2y$ as
// htpasswd -B writes it, and $2b$), SHA-256-crypt ($5$) and SHA-512-crypt ($6$). Left
// out on purpose: {PLAIN} (a password in clear), DES crypt and $1$ MD5-crypt (broken),
// {SSHA} (a single salted SHA-1), and yescrypt ($y$), which libxcrypt verifies but other
// libcs under nginx (musl, older glibc) do not, so a file would work on one data plane
// and lock everyone out on another.
var passwordHashes = []*regexp.Regexp{
	regexp.MustCompile(`^\$apr1\$[./0-9A-Za-z]{1,8}\$[./0-9A-Za-z]{22}$`),
	regexp.MustCompile(`^\{SHA\}[A-Za-z0-9+/]{27}=$`),
	regexp.MustCompile(`^\$2[by]\$(0[4-9]|[12][0-9]|3[01])\$[./A-Za-z0-9]{53}$`),
	regexp.MustCompile(`^\$5\$(rounds=[1-9][0-9]{3,8}\$)?[./0-9A-Za-z]{1,16}\$[./0-9A-Za-z]{43}$`),
	regexp.MustCompile(`^\$6\$(rounds=[1-9][0-9]{3,8}\$)?[./0-9A-Za-z]{1,16}\$[./0-9A-Za-z]{86}$`),
}

// errPasswordHash never quotes the hash, which might be a password typed in clear.
var errPasswordHash = errors.New("the password hash must be $apr1$ (htpasswd -m), {SHA} (htpasswd -s), bcrypt $2y$/$2b$ (htpasswd -B), $5$ or $6$ (openssl passwd -5/-6)")

// ValidPasswordHash checks one htpasswd hash against the formats nginx on Debian verifies.
func ValidPasswordHash(hash string) error {
	for _, re := range passwordHashes {
		if re.MatchString(hash) {
			return nil
		}
	}
	return errPasswordHash
}
