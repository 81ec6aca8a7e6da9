// Package rbxbin reads and writes Roblox's binary model and place format (.rbxm,
// .rbxl; the "<roblox!" files), built from rbx-dom's published format notes
// (docs/binary.md): a header, then the META, SSTR, INST, PROP, PRNT and END
// chunks, each stored raw or LZ4/zstd compressed.
//
// It mirrors package rbxmx: Decode returns the top-level instances with
// provisional IDs (capture refs with rbxmx.CaptureRefs before reassigning IDs),
// and Encode writes roots deterministically. Property names and the blobs stored
// inside strings (attributes, tags, terrain colors) are mapped exactly as the XML
// format maps them, so the same tree reads the same from either format.
package rbxbin
