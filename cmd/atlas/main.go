// Command atlas syncs a Roblox Studio place with a Rojo project in a git repository.
package main

import "os"

func main() { os.Exit(Main()) }
