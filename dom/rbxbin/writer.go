package rbxbin

import "math"

// writer builds one chunk's data.
type writer struct{ buf []byte }

func (w *writer) u8(v byte)     { w.buf = append(w.buf, v) }
func (w *writer) u16(v uint16)  { w.buf = le.AppendUint16(w.buf, v) }
func (w *writer) u32(v uint32)  { w.buf = le.AppendUint32(w.buf, v) }
func (w *writer) f32(v float32) { w.u32(math.Float32bits(v)) }
func (w *writer) f64(v float64) { w.buf = le.AppendUint64(w.buf, math.Float64bits(v)) }
func (w *writer) str(s string)  { w.u32(uint32(len(s))); w.buf = append(w.buf, s...) }
func (w *writer) raw(b []byte)  { w.u32(uint32(len(b))); w.buf = append(w.buf, b...) }

// columns appends rows (n values of width bytes) interleaved.
func (w *writer) columns(rows []byte, width int) {
	start := len(w.buf)
	w.buf = append(w.buf, make([]byte, len(rows))...)
	interleave(w.buf[start:], rows, width)
}

func (w *writer) u32s(v []uint32) {
	rows := make([]byte, 4*len(v))
	for i, x := range v {
		be.PutUint32(rows[4*i:], x)
	}
	w.columns(rows, 4)
}

func (w *writer) i32s(v []int32) {
	u := make([]uint32, len(v))
	for i, x := range v {
		u[i] = encodeZigzag32(x)
	}
	w.u32s(u)
}

func (w *writer) f32s(v []float32) {
	u := make([]uint32, len(v))
	for i, x := range v {
		u[i] = encodeRobloxFloat(x)
	}
	w.u32s(u)
}

func (w *writer) i64s(v []int64) {
	rows := make([]byte, 8*len(v))
	for i, x := range v {
		be.PutUint64(rows[8*i:], encodeZigzag64(x))
	}
	w.columns(rows, 8)
}

// refs writes referents as differences from the one before.
func (w *writer) refs(v []int32) {
	d := make([]int32, len(v))
	var prev int32
	for i, x := range v {
		d[i] = x - prev
		prev = x
	}
	w.i32s(d)
}
