package dom

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestPropsSetGetDelete(t *testing.T) {
	var p Props
	if v, ok := p.Lookup("A"); v != nil || ok || p.Get("A") != nil {
		t.Fatal("nil Props finds a property")
	}
	for _, name := range []string{"Size", "Anchored", "Color", "Name2", "Anchored"} {
		p.Set(name, String(name))
	}
	if got, want := p.Names(), []string{"Anchored", "Color", "Name2", "Size"}; !slices.Equal(got, want) {
		t.Fatalf("names %v, want %v (sorted, each once)", got, want)
	}
	p.Set("Color", Bool(true))
	if v, ok := p.Lookup("Color"); !ok || v != Bool(true) {
		t.Errorf("Color = %v, %v after Set", v, ok)
	}
	p.Delete("Nope")
	p.Delete("Anchored")
	if got := p.Names(); !slices.Equal(got, []string{"Color", "Name2", "Size"}) {
		t.Errorf("after Delete: %v", got)
	}
	for _, n := range []string{"Color", "Name2", "Size"} {
		p.Delete(n)
	}
	if p != nil {
		t.Errorf("Props emptied by Delete = %#v, want nil", p)
	}
}

// A Props that shares another's array (a copied instance) never sees a name the
// other adds or removes.
func TestPropsSharedArray(t *testing.T) {
	var a Props
	a.Set("B", Int32(2))
	a.Set("D", Int32(4))
	b := a
	b.Set("C", Int32(3))
	b.Delete("B")
	if got := a.Names(); !slices.Equal(got, []string{"B", "D"}) {
		t.Errorf("the sharer's names became %v", got)
	}
	if a.Get("B") != Int32(2) || a.Get("D") != Int32(4) {
		t.Errorf("the sharer's values changed: %v", a)
	}
	if got := b.Names(); !slices.Equal(got, []string{"C", "D"}) {
		t.Errorf("names %v, want [C D]", got)
	}
}

func TestMakePropsAndJSON(t *testing.T) {
	p := MakeProps([]Property{{"Z", Int32(1)}, {"A", Int32(2)}, {"Z", Int32(3)}, {"M", String("x")}})
	if got := p.Names(); !slices.Equal(got, []string{"A", "M", "Z"}) || p.Get("Z") != Int32(3) {
		t.Fatalf("MakeProps = %v, want A, M, Z with the last Z", p)
	}
	if cap(p) != len(p) {
		t.Errorf("MakeProps keeps %d spare slots", cap(p)-len(p))
	}
	if MakeProps(nil) != nil {
		t.Error("MakeProps(nil) is not nil")
	}
	got, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(p.Map())
	if string(got) != string(want) {
		t.Errorf("Props JSON %s, want the map's %s", got, want)
	}
	var back Props
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.Names(), p.Names()) || back.Get("M") != String("x") {
		t.Errorf("JSON round trip = %v, want %v", back, p)
	}
	if err := json.Unmarshal([]byte(`{"A": 1}`), &back); err == nil {
		t.Error("an untagged value decoded")
	}
}

// A builder keeps the first value of a name, short or long, and makes sorted Props.
func TestPropsBuilder(t *testing.T) {
	for _, n := range []int{3, builderScan + 10} {
		var b PropsBuilder
		for i := n - 1; i >= 0; i-- {
			if !b.Add(string(rune('A'+i)), Int32(i)) {
				t.Fatalf("n=%d: Add of a new name refused", n)
			}
		}
		if b.Add("B", Int32(100)) || !b.Has("B") || b.Has("b") {
			t.Errorf("n=%d: a repeated name was added, or Has is wrong", n)
		}
		p := b.Props()
		if len(p) != n || p.Get("B") != Int32(1) || !slices.IsSortedFunc(p, func(x, y Property) int { return strings.Compare(x.Name, y.Name) }) {
			t.Errorf("n=%d: Props = %v", n, p)
		}
		if b.Has("A") || len(b.Props()) != 0 {
			t.Errorf("n=%d: the builder is not empty after Props", n)
		}
	}
}
