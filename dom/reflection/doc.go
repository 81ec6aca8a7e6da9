// Package reflection describes Roblox classes, properties and enums: data
// types, serialization, defaults and inheritance. The data is rbx-dom's
// reflection database, embedded in compact form as database.json.gz and
// decoded on first use; see LICENSE-rbx-dom.txt for its licence.
package reflection

//go:generate go run ./internal/gen -in source/rbx-dom-database.json.gz -out database.json.gz
