// Package rbxmx reads and writes Roblox's XML model and place format (.rbxmx,
// .rbxlx; <roblox version="4">) as Roblox Studio and rbx-dom's rbx_xml write it,
// mapping property names and types through the reflection database. Refs inside a
// document survive ID reassignment through CaptureRefs and Refs.Rebind.
package rbxmx
