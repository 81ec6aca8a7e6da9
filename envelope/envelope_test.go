package envelope

import (
	"encoding/json"
	"testing"

	"github.com/atlas-rbx/atlas/errcode"
)

func TestShapes(t *testing.T) {
	type data struct {
		N int `json:"n"`
	}
	refused := errcode.New(errcode.Unresolved, "two changes have no direction").Reason("unresolved", "pass overrides").With("ids", []string{"a", "b"})
	for _, tc := range []struct {
		name string
		got  []byte
		want string
	}{
		{"ok", OK("status", data{1}, nil).Marshal(),
			`{"schemaVersion":1,"ok":true,"command":"status","data":{"n":1},"warnings":[],"errors":[]}`},
		{"ok without data", OK("hook.install", nil, []string{"w"}).Marshal(),
			`{"schemaVersion":1,"ok":true,"command":"hook.install","data":{},"warnings":["w"],"errors":[]}`},
		{"failure without data", Fail("sync.apply", refused, nil, nil).Marshal(),
			`{"schemaVersion":1,"ok":false,"command":"sync.apply","data":null,"warnings":[],"errors":[{"code":"E_UNRESOLVED","message":"two changes have no direction","details":{"ids":["a","b"],"nextActions":["pass overrides"],"reasonCode":"unresolved"}}]}`},
		{"failure with default details", Fail("x", errcode.New(errcode.NotFound, "gone"), nil, nil).Marshal(),
			`{"schemaVersion":1,"ok":false,"command":"x","data":null,"warnings":[],"errors":[{"code":"E_NOT_FOUND","message":"gone","details":{"nextActions":[],"reasonCode":"not_found"}}]}`},
		{"typed", Typed("sync.plan", &data{2}, nil, nil).Marshal(),
			`{"schemaVersion":1,"ok":true,"command":"sync.plan","data":{"n":2},"warnings":[],"errors":[]}`},
		{"typed failure", Typed[data]("sync.plan", nil, nil, errcode.New(errcode.NotFound, "gone")).Marshal(),
			`{"schemaVersion":1,"ok":false,"command":"sync.plan","data":null,"warnings":[],"errors":[{"code":"E_NOT_FOUND","message":"gone","details":{"nextActions":[],"reasonCode":"not_found"}}]}`},
		{"typed failure with partial data", Typed("atlas_sync", &data{3}, []string{"w"}, refused).Marshal(),
			`{"schemaVersion":1,"ok":false,"command":"atlas_sync","data":{"n":3},"warnings":["w"],"errors":[{"code":"E_UNRESOLVED","message":"two changes have no direction","details":{"ids":["a","b"],"nextActions":["pass overrides"],"reasonCode":"unresolved"}}]}`},
	} {
		if string(tc.got) != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, tc.got, tc.want)
		}
		if !json.Valid(tc.got) {
			t.Errorf("%s: not JSON", tc.name)
		}
	}
}
