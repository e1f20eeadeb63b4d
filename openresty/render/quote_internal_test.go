package render

import "testing"

func TestQuoteEscapesWhatNginxReads(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`plain`, `"plain"`},
		{`a b`, `"a b"`},
		{`say "hi"`, `"say \"hi\""`},
		{`^/\d+`, `"^/\\d+"`},
		{`x;y{z}#`, `"x;y{z}#"`},
	} {
		got, err := quote(c.in)
		if err != nil || got != c.want {
			t.Errorf("quote(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"$host", "a\nb", "a\x00b"} {
		if _, err := quote(bad); err == nil {
			t.Errorf("quote(%q) accepted it", bad)
		}
	}
	if got, err := regexQuote(`^/a$`); err != nil || got != `"^/a$"` {
		t.Errorf("regexQuote kept = %q, %v", got, err)
	}
	if got, want := luaQuote("a\"b\\c\n"), `"a\"b\\c\010"`; got != want {
		t.Errorf("luaQuote = %s, want %s", got, want)
	}
}
