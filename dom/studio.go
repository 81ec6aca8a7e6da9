package dom

import (
	"strings"
	"sync"

	"github.com/atlas-rbx/atlas/dom/reflection"
)

// StudioSyncable reports whether Atlas can keep className.prop in sync with Studio:
// whether the plugin's scripts can both read and write it. The reflection database's
// Scriptability tells: only ReadWrite properties qualify, plus those the plugin reads
// and writes its own way (Name, Source, Attributes and Tags). A read-only property
// (MeshPart.MeshId, Players.MaxPlayers) or one scripts cannot touch at all
// (Model.WorldPivotData, LocalizationTable.Contents) would otherwise differ forever
// and make every write to it fail; so would a reference. A property the database
// does not know is assumed syncable: a newer Studio may have it.
func StudioSyncable(className, prop string) bool {
	switch prop {
	case "Name", "Source", "Attributes", "Tags":
		return true
	}
	// A plan asks for every property of every instance: remember the answers (the
	// database does not change; the classes and properties a project uses are few).
	key := classProp{className, prop}
	if v, ok := syncable.Load(key); ok {
		return v.(bool)
	}
	v := studioSyncable(className, prop)
	syncable.Store(key, v)
	return v
}

type classProp struct{ class, prop string }

var syncable sync.Map // classProp → bool

func studioSyncable(className, prop string) bool {
	p, ok := reflection.LookupProperty(className, prop)
	if !ok {
		return true
	}
	// A reference (Model.PrimaryPart, ObjectValue.Value) points at an instance by
	// its place's referent, which neither a project file nor the plugin's values
	// can name: kept inside model files, never compared.
	return p.Scriptability == "ReadWrite" && p.Type.Name != "Ref"
}

// KnownProperty reports whether className.prop is one the reflection database lists
// (or one the plugin reads its own way: Name, Source, Attributes, Tags).
func KnownProperty(className, prop string) bool {
	switch prop {
	case "Name", "Source", "Attributes", "Tags":
		return true
	}
	_, ok := reflection.LookupProperty(className, prop)
	return ok
}

// IsRefProperty reports whether className.prop is a reference (an instance).
func IsRefProperty(className, prop string) bool {
	p, ok := reflection.LookupProperty(className, prop)
	return ok && p.Type.Name == "Ref"
}

// Superseded reports whether className.prop is a legacy property the reflection
// database migrates into another (BasePart.BrickColor into Color) when that one is
// not set, and has tells that it is: Studio then holds one value, the newer
// property's, and into names it.
func Superseded(className, prop string, has func(name string) bool) (into string, ok bool) {
	p, found := reflection.LookupProperty(className, prop)
	if !found || len(p.MigrateTo) == 0 {
		return "", false
	}
	for _, to := range p.MigrateTo {
		if !has(to) {
			return "", false
		}
	}
	return strings.Join(p.MigrateTo, ", "), true
}
