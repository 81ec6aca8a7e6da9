package main

import "testing"

func TestUnifiedDiff(t *testing.T) {
	cases := []struct{ a, b, want string }{
		{"a\nb\nc\n", "a\nB\nc\n", "--- x\n+++ y\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"", "new\n", "--- x\n+++ y\n@@ -1,0 +1,1 @@\n+new\n"},
		{"same\n", "same\n", "--- x\n+++ y\n"},
		{"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "1\n2\n3\n4\n5\n6\n7\n8\n9\nten\n", "--- x\n+++ y\n@@ -7,4 +7,4 @@\n 7\n 8\n 9\n-10\n+ten\n"},
	}
	for _, c := range cases {
		if got := unifiedDiff("x", "y", c.a, c.b); got != c.want {
			t.Errorf("unifiedDiff(%q, %q) =\n%s\nwant\n%s", c.a, c.b, got, c.want)
		}
	}
}
