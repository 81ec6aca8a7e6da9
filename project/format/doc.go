// Package format reads and writes the file formats a Rojo 7.7 project is made of:
// lenient JSONC (with edits that keep a file's formatting), JSON objects written in
// the order given, the Luau a .json, .toml or .yaml module becomes, and the
// LocalizationTable contents of a .csv file, each byte for byte as Rojo produces them.
package format
