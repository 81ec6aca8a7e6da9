package benchgen

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// Options size a generated project: Packages folders of Subfolders folders, each
// holding Scripts scripts of about ScriptSize bytes (half with a meta file giving
// an attribute), as many .txt files and as many .model.json Parts with two children
// each. The packages are spread over ReplicatedStorage (ModuleScripts, 60%),
// ServerScriptService (Scripts, 30%) and StarterPlayerScripts (LocalScripts).
type Options struct {
	Packages, Subfolders, Scripts, ScriptSize int
}

// Budget is the budget project: 10,000 scripts (about 41 MB) in 51,205 instances.
var Budget = Options{Packages: 200, Subfolders: 5, Scripts: 10, ScriptSize: 4096}

// Project is a generated project.
type Project struct {
	Dir string
	// Bytes is the size of every file; Source of the scripts alone.
	Bytes, Source int64
	// Instances is how many instances the project loads as.
	Instances int
	// Edits are one script per subfolder (the first), for edit benchmarks; paths
	// are relative to Dir, with '/'.
	Edits []string
	// Files is every file written, relative to Dir with '/', sorted.
	Files []string
}

// Write generates the project in dir (which must exist) and commits it in a new
// git repository there.
func Write(dir string, o Options) (*Project, error) {
	p := &Project{Dir: dir, Instances: 5} // game, the three services, StarterPlayer
	files := map[string][]byte{
		"default.project.json": []byte(`{
  "name": "Bench",
  "tree": {
    "$className": "DataModel",
    "ReplicatedStorage": { "$path": "src/shared" },
    "ServerScriptService": { "$path": "src/server" },
    "StarterPlayer": { "StarterPlayerScripts": { "$path": "src/client" } }
  }
}
`),
	}
	for pkg := range o.Packages {
		root, ext := "src/shared", ".luau"
		switch {
		case pkg >= o.Packages*9/10:
			root, ext = "src/client", ".client.luau"
		case pkg >= o.Packages*6/10:
			root, ext = "src/server", ".server.luau"
		}
		p.Instances++
		for s := range o.Subfolders {
			sub := fmt.Sprintf("%s/pkg%03d/sub%d", root, pkg, s)
			p.Instances++
			for i := range o.Scripts {
				script := fmt.Sprintf("%s/Script%d%s", sub, i, ext)
				files[script] = source(script, o.ScriptSize)
				p.Source += int64(len(files[script]))
				if i == 0 {
					p.Edits = append(p.Edits, script)
				}
				if i%2 == 0 {
					files[fmt.Sprintf("%s/Script%d.meta.json", sub, i)] = []byte(fmt.Sprintf(`{ "attributes": { "Index": %d } }`+"\n", i))
				}
				files[fmt.Sprintf("%s/Note%d.txt", sub, i)] = []byte(fmt.Sprintf("note %d of %s\n", i, sub))
				files[fmt.Sprintf("%s/Part%d.model.json", sub, i)] = []byte(fmt.Sprintf(`{
  "className": "Part",
  "properties": { "Anchored": %t, "Size": [%d, 1, 2], "Material": "Neon", "Color": [0.5, %d, 0.25] },
  "children": [
    { "name": "Top", "className": "Attachment" },
    { "name": "Weld", "className": "WeldConstraint" }
  ]
}
`, i%2 == 0, i+1, i%2))
				p.Instances += 5 // the script, the note, the part and its two children
			}
		}
	}
	for name, data := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return nil, err
		}
		p.Bytes += int64(len(data))
		p.Files = append(p.Files, name)
	}
	slices.Sort(p.Files)
	for _, args := range [][]string{
		{"init", "-q"},
		{"add", "-A"},
		{"commit", "-q", "--no-verify", "-m", "bench project"},
		{"status", "--porcelain"}, // refreshes the index's stat data, as any earlier use would have
	} {
		if _, err := Git(dir, args...); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// source is a script of about size bytes, different for every path so that git
// stores every file as its own blob.
func source(path string, size int) []byte {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "--!strict\n-- %s\nlocal M = {}\n\n", path)
	for i := 0; buf.Len() < size-64; i++ {
		fmt.Fprintf(&buf, "function M.f%d(x: number): number\n\treturn x * %d + %d -- %s\nend\n\n", i, i+1, len(path), path)
	}
	buf.WriteString("return M\n")
	return buf.Bytes()
}

// Git runs git in dir, isolated from the machine's configuration, and returns its
// output.
func Git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.invalid",
		"GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@example.invalid")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, errOut.String())
	}
	return out.String(), nil
}
