// Command gen writes the class and enum data of the emulator's mock DataModel
// (plugin/emulator/mock/Data.luau) from the reflection database that package
// dom/reflection embeds (rbx-dom's, generated from Roblox's API): every class with its
// superclass and tags (Service, NotCreatable), the properties scripts can read (with
// their type, whether scripts can write them, and the class's defaults) and every enum
// with Studio's item values.
//
// Properties scripts cannot touch (Scriptability None, and Custom ones other than a
// script's Source) are left out: to the mock, as to Studio, they are not members.
//
//	go generate ./plugin/emulator/gen
package main

//go:generate go run . -out ../mock/Data.luau

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	out := flag.String("out", "../mock/Data.luau", "the Luau module to write")
	flag.Parse()
	src, err := Generate()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
