// Command gen converts rbx-dom's reflection database (database.json) into
// the compact gzip file embedded by package reflection, and copies rbx-dom's
// licence next to it.
//
// It is run by `go generate` in dom/reflection, so relative paths are
// relative to that directory.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/atlas-rbx/atlas/dom/reflection/internal/dbfile"
)

func main() {
	in := flag.String("in", "../../../shared/data/rbx-reflection-database.json", "rbx-dom database.json to read")
	out := flag.String("out", "database.json.gz", "compact database to write")
	license := flag.String("license", "", "rbx-dom licence to copy (default: rbx-dom-LICENSE.txt next to -in)")
	licenseOut := flag.String("license-out", "", "where to copy the licence (default: LICENSE-rbx-dom.txt next to -out)")
	flag.Parse()
	if *license == "" {
		*license = filepath.Join(filepath.Dir(*in), "rbx-dom-LICENSE.txt")
	}
	if *licenseOut == "" {
		*licenseOut = filepath.Join(filepath.Dir(*out), "LICENSE-rbx-dom.txt")
	}
	if err := run(*in, *out, *license, *licenseOut); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(in, out, license, licenseOut string) error {
	src, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	lic, err := os.ReadFile(license)
	if err != nil {
		return err
	}
	f, err := dbfile.Convert(src)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	gz, err := dbfile.Encode(f)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, gz, 0o644); err != nil {
		return err
	}
	return os.WriteFile(licenseOut, lic, 0o644)
}
