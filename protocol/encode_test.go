package protocol

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// decoded is data as json.Unmarshal reads it into any.
func decoded(t testing.TB, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	return v
}

func randomValues(r *rand.Rand) Values {
	if r.IntN(4) == 0 {
		return nil
	}
	texts := []string{"print(1)\n", "a \"quoted\" <tag> & \\ back\tslash\u2028", "é中😀", "", "\x01ctl"}
	v := Values{}
	for i := range r.IntN(4) {
		s, _ := json.Marshal(texts[r.IntN(len(texts))])
		switch r.IntN(3) {
		case 0:
			v[fmt.Sprintf("Source%d", i)] = json.RawMessage(`{"String":` + string(s) + `}`)
		case 1:
			v[fmt.Sprintf("P<%d>", i)] = json.RawMessage(`{"Vector3": [1, 2.5, -3]}`)
		default:
			v["Anchored"] = json.RawMessage(`{"Bool":true}`)
		}
	}
	return v
}

func randomInstance(r *rand.Rand, depth int) *NewInstance {
	n := &NewInstance{Name: []string{"Part", "a\"b", "<x>"}[r.IntN(3)], ClassName: "Folder", Properties: randomValues(r)}
	if depth < 2 && r.IntN(2) == 0 {
		n.Children = []*NewInstance{}
		for range r.IntN(3) {
			n.Children = append(n.Children, randomInstance(r, depth+1))
		}
	}
	return n
}

// TestEncodeOps: what EncodeOps gives reads back as json.Marshal's does, for random
// ops with every field set or left out.
func TestEncodeOps(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 500 {
		ops := make([]Op, r.IntN(5))
		for i := range ops {
			op := Op{Op: []OpKind{OpEdit, OpAdd, OpRemove}[r.IntN(3)], Set: randomValues(r)}
			if r.IntN(2) == 0 {
				op.Handle = fmt.Sprintf("h%d", r.IntN(100))
			}
			if r.IntN(2) == 0 {
				op.Parent = "p&1"
			}
			if r.IntN(2) == 0 {
				op.Expect = &Expect{Properties: randomValues(r)}
				if r.IntN(2) == 0 {
					op.Expect.SourceSha1 = strings.Repeat("ab", 20)
				}
			}
			if r.IntN(3) == 0 {
				op.Instance = randomInstance(r, 0)
			}
			if r.IntN(2) == 0 {
				op.ChangeID = fmt.Sprintf("c%d", round)
			}
			ops[i] = op
		}
		got, err := EncodeOps(ops)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		want, err := json.Marshal(ops)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(decoded(t, got), decoded(t, want)) {
			t.Fatalf("round %d: EncodeOps\n%s\njson.Marshal\n%s", round, got, want)
		}
	}
}

// randomOps is n random ops with every field set or left out.
func randomOps(r *rand.Rand, n int) []Op {
	ops := make([]Op, n)
	for i := range ops {
		op := Op{Op: []OpKind{OpEdit, OpAdd, OpRemove}[r.IntN(3)], Set: randomValues(r), ChangeID: fmt.Sprintf("c%d", i)}
		if r.IntN(2) == 0 {
			op.Handle = fmt.Sprintf("h%d", r.IntN(100))
		}
		if r.IntN(2) == 0 {
			op.Expect = &Expect{SourceSha1: strings.Repeat("ab", 20), Properties: randomValues(r)}
		}
		if r.IntN(3) == 0 {
			op.Instance = randomInstance(r, 0)
		}
		ops[i] = op
	}
	return ops
}

// TestSplitAndJoinOps: SplitOps cuts ops into consecutive runs, none empty, of about
// the bytes asked; the EncodeOps of the runs joined by JoinOps are EncodeOps of all
// the ops, byte for byte.
func TestSplitAndJoinOps(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for round := range 300 {
		ops := randomOps(r, r.IntN(40))
		piece := 1 + r.IntN(2000)
		runs := SplitOps(ops, piece)
		var again []Op
		var pieces [][]byte
		for i, run := range runs {
			if len(run) == 0 {
				t.Fatalf("round %d: run %d is empty", round, i)
			}
			if size := runSize(run[:len(run)-1]); size >= piece {
				t.Fatalf("round %d: run %d holds %d bytes before its last op, past %d", round, i, size, piece)
			}
			again = append(again, run...)
			b, err := EncodeOps(run)
			if err != nil {
				t.Fatal(err)
			}
			pieces = append(pieces, b)
		}
		if !reflect.DeepEqual(again, ops) && len(ops) > 0 {
			t.Fatalf("round %d: the runs are not the ops in order", round)
		}
		want, err := EncodeOps(ops)
		if err != nil {
			t.Fatal(err)
		}
		if len(ops) == 0 {
			if len(runs) != 0 {
				t.Fatalf("no ops: %d runs", len(runs))
			}
			continue
		}
		if got := JoinOps(pieces); string(got) != string(want) {
			t.Fatalf("round %d (%d runs): JoinOps\n%s\nEncodeOps\n%s", round, len(runs), got, want)
		}
	}
	if got := string(JoinOps([][]byte{[]byte("[]"), []byte(`[{"op":"remove"}]`), []byte("[]")})); got != `[{"op":"remove"}]` {
		t.Errorf("JoinOps with empty pieces = %s", got)
	}
}

func runSize(ops []Op) int {
	n := 0
	for i := range ops {
		n += opSize(&ops[i])
	}
	return n
}

// TestEncodeOpsEdges: no ops, a nil value and empty encoded ops are what json.Marshal
// makes of them.
func TestEncodeOpsEdges(t *testing.T) {
	for _, ops := range [][]Op{nil, {}, {{Op: OpEdit, Handle: "h", Set: Values{"Source": nil}}}} {
		got, err := EncodeOps(ops)
		if err != nil {
			t.Fatalf("EncodeOps(%v): %v", ops, err)
		}
		want, _ := json.Marshal(ops)
		if string(got) != string(want) {
			t.Errorf("EncodeOps(%#v) = %s, json.Marshal gives %s", ops, got, want)
		}
	}
	p := ApplyParams{TxID: "tx", Ops: []Op{{Op: OpRemove, Handle: "h"}}, OpsJSON: json.RawMessage{}}
	got, err := p.AppendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := json.Marshal(p); string(got) != string(want) {
		t.Errorf("AppendJSON with empty OpsJSON = %s, json.Marshal gives %s", got, want)
	}
}

// TestEncodeOpsRefusesBadValues: a value that is not one JSON value is an error, as
// json.Marshal makes it.
func TestEncodeOpsRefusesBadValues(t *testing.T) {
	for _, raw := range []string{``, `{"String":"a"b"}`, `{"String":"\x"}`, `{"String":"a"} x`, `{"String":"\u12"}`, "{\"String\":\"\x01\"}", `{`} {
		ops := []Op{{Op: OpEdit, Handle: "h", Set: Values{"Source": json.RawMessage(raw)}}}
		if _, err := EncodeOps(ops); err == nil {
			t.Errorf("EncodeOps took the value %q", raw)
		}
		if _, err := json.Marshal(ops); err == nil {
			t.Errorf("json.Marshal took the value %q (the test's case is wrong)", raw)
		}
	}
}

// FuzzValidValue: the one-pass check never takes what encoding/json refuses, and
// takes what it takes.
func FuzzValidValue(f *testing.F) {
	for _, s := range []string{`{"String":"a\nb"}`, `{"String":"\u00e9"}`, `{"String":"a"b"}`, `{"Bool":true}`, "{\"String\":\"\xff\"}", `{"String":"\\"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if got, want := validValue(raw), json.Valid(raw); got != want {
			t.Fatalf("validValue(%q) = %v, json.Valid = %v", raw, got, want)
		}
	})
}

// BenchmarkEncodeOps: 1,000 edits of 4 KB sources, by EncodeOps and by json.Marshal.
func BenchmarkEncodeOps(b *testing.B) {
	src, _ := json.Marshal(strings.Repeat("\tlocal x = \"<y>\" -- a line\n", 150))
	ops := make([]Op, 1000)
	for i := range ops {
		ops[i] = Op{Op: OpEdit, Handle: fmt.Sprintf("h%d", i), Expect: &Expect{SourceSha1: strings.Repeat("ab", 20)},
			Set: Values{"Source": json.RawMessage(`{"String":` + string(src) + `}`)}, ChangeID: fmt.Sprintf("c%d", i)}
	}
	b.Run("EncodeOps", func(b *testing.B) {
		for b.Loop() {
			if _, err := EncodeOps(ops); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json.Marshal", func(b *testing.B) {
		for b.Loop() {
			if _, err := json.Marshal(ops); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkAppendString: a request's JSON text (1,000 edits of 4 KB sources) as the
// data of requestParts, a JSON string in a JSON string.
func BenchmarkAppendString(b *testing.B) {
	src, _ := json.Marshal(strings.Repeat("\tlocal x = \"<y>\" -- a line\n", 150))
	ops := make([]Op, 1000)
	for i := range ops {
		ops[i] = Op{Op: OpEdit, Handle: fmt.Sprintf("h%d", i), Set: Values{"Source": json.RawMessage(`{"String":` + string(src) + `}`)}}
	}
	text, err := EncodeOps(ops)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	var out []byte
	for b.Loop() {
		out = AppendString(out[:0], string(text))
	}
}

// FuzzAppendString: AppendString writes what json.Marshal writes.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"plain", "a\"b\\c\nd\re\tf\x01g\x7f", "<a> & b", "é中😀\u2028\u2029", "\xff bad", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s); string(got) != string(want) {
			t.Fatalf("AppendString(%q) = %s, json.Marshal gives %s", s, got, want)
		}
	})
}
