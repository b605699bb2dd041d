package bench

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestLineNaN: a value that cannot be estimated is null in bench.json and
// n/a in the text, never NaN (which encoding/json refuses).
func TestLineNaN(t *testing.T) {
	l := Line{Name: "ESS per CPU-second: sw", Model: "m", Beta: 1, Value: math.NaN(), Unit: "ESS/cpu-s"}
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"value":null`) || strings.Contains(string(b), "NaN") {
		t.Fatalf("json %s", b)
	}
	if s := l.String(); !strings.Contains(s, "n/a") || strings.Contains(s, "NaN") {
		t.Fatalf("text %q", s)
	}
	l.Value = 2.5
	b, _ = json.Marshal(l)
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil || back["value"] != 2.5 || back["name"] != l.Name {
		t.Fatalf("round trip %s", b)
	}
}
