package maintenance

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/novelsuite/novel/internal/project"
	"github.com/novelsuite/novel/internal/testsupport/testkit"
)

func readJSON(t *testing.T, r *project.Root, rel string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := r.ReadJSON(rel, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func evalWith(sugg ...string) map[string]any {
	var list []any
	for _, s := range sugg {
		var m map[string]any
		json.Unmarshal([]byte(s), &m)
		list = append(list, m)
	}
	return map[string]any{"anti_ai": map[string]any{"blacklist_update_suggestions": list}}
}

func TestBlacklistUpkeep(t *testing.T) {
	r := testkit.Project(t, map[string]string{
		"ai-blacklist.json":  `{"version":"1.2.3","words":["不禁"],"whitelist":[],"update_log":[]}`,
		"style-profile.json": `{"preferred_expressions":["心头一沉"]}`,
	})
	ev := evalWith(
		`{"phrase":"嘴角勾起","count_in_chapter":2,"confidence":"high"}`,
		`{"phrase":"眸光一闪","count_in_chapter":3,"confidence":"medium","examples":["她眸光一闪"]}`,
		`{"phrase":"心头一沉","count_in_chapter":4,"confidence":"high"}`,
		`{"phrase":"不禁","count_in_chapter":5,"confidence":"high"}`,
		`{"phrase":"低沉","count_in_chapter":9,"confidence":"low"}`,
	)
	rep, err := updateBlacklist(r, 7, ev, "2026-01-01T00:00:00Z")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rep.Added, []string{"眸光一闪"}) || !reflect.DeepEqual(rep.Exempted, []string{"心头一沉"}) || rep.Version != "1.2.4" {
		t.Fatalf("%+v", rep)
	}
	bl := readJSON(t, r, "ai-blacklist.json")
	if fmt.Sprint(bl["words"]) != "[不禁 眸光一闪]" || fmt.Sprint(bl["whitelist"]) != "[心头一沉]" || bl["last_updated"] != "2026-01-01T00:00:00Z" {
		t.Fatalf("%v", bl)
	}
	before, _ := os.ReadFile(filepath.Join(r.Dir, "ai-blacklist.json"))
	rep2, err := updateBlacklist(r, 7, ev, "2026-01-02T00:00:00Z")
	after, _ := os.ReadFile(filepath.Join(r.Dir, "ai-blacklist.json"))
	if err != nil || string(before) != string(after) || !reflect.DeepEqual(rep, rep2) {
		t.Fatalf("re-run not idempotent: %v\n%s\n%s", err, before, after)
	}
	if n := len(bl["update_log"].([]any)); n != 1 {
		t.Fatalf("update_log has %d entries", n)
	}
}

func TestBlacklistCapAndWhitelistObject(t *testing.T) {
	words := make([]string, 79)
	for i := range words {
		words[i] = fmt.Sprintf("词%02d", i)
	}
	wj, _ := json.Marshal(words)
	r := testkit.Project(t, map[string]string{
		"ai-blacklist.json": `{"version":"v2","words":` + string(wj) + `,"whitelist":{"words":["甲"]}}`,
	})
	ev := evalWith(`{"phrase":"乙","count_in_chapter":3,"confidence":"high"}`,
		`{"phrase":"丙","count_in_chapter":3,"confidence":"high"}`,
		`{"phrase":"甲","count_in_chapter":3,"confidence":"high"}`)
	rep, err := updateBlacklist(r, 3, ev, "now")
	if err != nil || !reflect.DeepEqual(rep.Added, []string{"乙"}) || !reflect.DeepEqual(rep.SkippedCap, []string{"丙"}) {
		t.Fatalf("%+v %v", rep, err)
	}
	bl := readJSON(t, r, "ai-blacklist.json")
	if len(bl["words"].([]any)) != 80 || bl["version"] != "v2" {
		t.Fatalf("%v", bl)
	}
	if wl := bl["whitelist"].(map[string]any); fmt.Sprint(wl["words"]) != "[甲]" {
		t.Fatalf("whitelist form changed: %v", bl["whitelist"])
	}
	log := bl["update_log"].([]any)[0].(map[string]any)
	if fmt.Sprint(log["auto_skipped_cap"]) != "[丙]" {
		t.Fatalf("%v", log)
	}
}

func chapterFiles(from, to int, body string) map[string]string {
	m := map[string]string{}
	for c := from; c <= to; c++ {
		m[fmt.Sprintf("chapters/chapter-%03d.md", c)] = body
	}
	return m
}

func TestDriftDetectRecoverTimeout(t *testing.T) {
	long := strings.Repeat("他沿着山道一路向北走去并且始终没有回头看一眼身后的城池和人群，", 3) + "。\n「走吧。」\n"
	files := chapterFiles(1, 5, long)
	files["style-profile.json"] = `{"avg_sentence_length":20,"dialogue_ratio":0.3}`
	r := testkit.Project(t, files)
	// outside the band once: remembered, no directive yet (SPEC §24)
	rep, err := checkDrift(r, 5, "t5")
	if err != nil || rep.Status != "pending" {
		t.Fatalf("%+v %v", rep, err)
	}
	if d := readJSON(t, r, "style-drift.json"); d["active"] != false {
		t.Fatalf("%v", d)
	}
	for c := 6; c <= 10; c++ {
		os.WriteFile(filepath.Join(r.Dir, fmt.Sprintf("chapters/chapter-%03d.md", c)), []byte(long), 0o644)
	}
	rep, err = checkDrift(r, 10, "t10")
	if err != nil || rep.Status != "detected" {
		t.Fatalf("%+v %v", rep, err)
	}
	d := readJSON(t, r, "style-drift.json")
	drifts := d["drifts"].([]any)
	if d["active"] != true || len(drifts) != 2 || !strings.HasPrefix(drifts[0].(map[string]any)["directive"].(string), "平均句长") {
		t.Fatalf("%v", d)
	}
	// a re-run for the same chapter (resumed commit) changes nothing
	before, _ := os.ReadFile(filepath.Join(r.Dir, "style-drift.json"))
	if rep, _ := checkDrift(r, 10, "t10"); rep.Status != "detected" {
		t.Fatalf("re-run status %s", rep.Status)
	}
	after, _ := os.ReadFile(filepath.Join(r.Dir, "style-drift.json"))
	if string(before) != string(after) {
		t.Fatal("re-run changed style-drift.json")
	}
	// chapters 11..15 written in the profile's style recover it
	normal := "林枫点头，转身推门。「师兄，我们该走了，天快黑了。」他说完便往外走去，背影很快消失。\n"
	m, _, _, _ := func() (Metrics, []int, bool, error) {
		tmp := testkit.Project(t, chapterFiles(1, 1, normal))
		return windowMetrics(tmp, 1, 1)
	}()
	r2 := testkit.Project(t, map[string]string{"style-profile.json": fmt.Sprintf(`{"avg_sentence_length":%v,"dialogue_ratio":%v}`, m.AvgSentenceLength, m.DialogueRatio)})
	for c := 11; c <= 15; c++ {
		os.MkdirAll(filepath.Join(r2.Dir, "chapters"), 0o755)
		os.WriteFile(filepath.Join(r2.Dir, fmt.Sprintf("chapters/chapter-%03d.md", c)), []byte(normal), 0o644)
	}
	os.WriteFile(filepath.Join(r2.Dir, "style-drift.json"), after, 0o644)
	if rep, err := checkDrift(r2, 15, "t15"); err != nil || rep.Status != "recovered" {
		t.Fatalf("%+v %v", rep, err)
	}
	d = readJSON(t, r2, "style-drift.json")
	if d["active"] != false || d["cleared_reason"] != "metrics_recovered" {
		t.Fatalf("%v", d)
	}
	// an active drift older than 15 chapters times out
	r3 := testkit.Project(t, map[string]string{"style-drift.json": `{"active":true,"detected_chapter":5,"drifts":[{"directive":"x"}]}`})
	if rep, _ := checkDrift(r3, 20, "t20"); rep.Status != "skipped" {
		t.Fatalf("15 chapters is not more than 15: %s", rep.Status)
	}
	if rep, _ := checkDrift(r3, 21, "t21"); rep.Status != "stale_timeout" {
		t.Fatalf("%s", rep.Status)
	}
	d = readJSON(t, r3, "style-drift.json")
	if d["active"] != false || d["cleared_reason"] != "stale_timeout" {
		t.Fatalf("%v", d)
	}
}
