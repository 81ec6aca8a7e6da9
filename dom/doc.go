// Package dom is Atlas's instance model: instances, typed property values with the
// tagged JSON encoding of rbx-dom, implicit values resolved through the reflection
// database, fuzzy equality, and stable instance ids. It does no I/O.
package dom
