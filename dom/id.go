package dom

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
)

// RootID is the id of every tree's root (the DataModel, or a model's root instance):
// a project root and Studio's game are the same instance whatever their names.
var RootID = idOf("atlas:root")

// ChildID returns the stable id of the ordinal-th (0-based) child named name among
// the same-named children of the instance with id parentID. The same instance gets the
// same id on disk, in Studio and in the base tree, in every process.
func ChildID(parentID, name string, ordinal int) string {
	return idOf(parentID + "\x00" + name + "\x00" + strconv.Itoa(ordinal))
}

func idOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:16])
}
