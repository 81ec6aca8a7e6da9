package dom

import "github.com/atlas-rbx/atlas/dom/reflection"

// StudioSyncable reports whether Atlas can keep className.prop in sync with Studio:
// whether the plugin's scripts can both read and write it. The reflection database's
// Scriptability tells: only ReadWrite properties qualify, plus those the plugin reads
// and writes its own way (Name, Source, Attributes and Tags). A read-only property
// (MeshPart.MeshId, Players.MaxPlayers) or one scripts cannot touch at all
// (Model.WorldPivotData, LocalizationTable.Contents) would otherwise differ forever
// and make every write to it fail. A property the database does not know is assumed
// syncable: a newer Studio may have it.
func StudioSyncable(className, prop string) bool {
	switch prop {
	case "Name", "Source", "Attributes", "Tags":
		return true
	}
	p, ok := reflection.LookupProperty(className, prop)
	if !ok {
		return true
	}
	return p.Scriptability == "ReadWrite"
}
