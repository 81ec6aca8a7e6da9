// Command gen converts rbx-dom's reflection database (database.json) into
// the compact gzip file embedded by package reflection, and copies rbx-dom's
// licence next to it.
//
// It is run by `go generate` in dom/reflection, so relative paths are
// relative to that directory. Its input is kept in the repository, gzipped, in
// dom/reflection/source (see the README there for where a newer one comes from),
// so a clone can regenerate the database.
package main

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/atlas-rbx/atlas/dom/reflection/internal/dbfile"
)

func main() {
	in := flag.String("in", "source/rbx-dom-database.json.gz", "rbx-dom database.json (or .json.gz) to read")
	out := flag.String("out", "database.json.gz", "compact database to write")
	license := flag.String("license", "", "rbx-dom licence to copy (default: rbx-dom-LICENSE.txt next to -in)")
	licenseOut := flag.String("license-out", "", "where to copy the licence (default: LICENSE-rbx-dom.txt next to -out)")
	flag.Parse()
	if *license == "" {
		*license = filepath.Join(filepath.Dir(*in), "LICENSE-rbx-dom.txt")
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
	gz, err := generate(in)
	if err != nil {
		return err
	}
	lic, err := os.ReadFile(license)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, gz, 0o644); err != nil {
		return err
	}
	return os.WriteFile(licenseOut, lic, 0o644)
}

// generate reads rbx-dom's database at in (gzipped when it ends in .gz) and returns
// the compact file package reflection embeds.
func generate(in string) ([]byte, error) {
	src, err := os.ReadFile(in)
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(in, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(src))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", in, err)
		}
		if src, err = io.ReadAll(zr); err != nil {
			return nil, fmt.Errorf("%s: %w", in, err)
		}
	}
	f, err := dbfile.Convert(src)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in, err)
	}
	return dbfile.Encode(f)
}
