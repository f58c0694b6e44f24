package cli

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

type numCmd struct {
	Chapter int  `type:"chapter"`
	Volume  *int `type:"volume"`
	Round   int
}

func (c *numCmd) Run(ctx *Context) error {
	v := -1
	if c.Volume != nil {
		v = *c.Volume
	}
	ctx.Result(fmt.Sprintf("%d %d %d", c.Chapter, v, c.Round), nil)
	return nil
}

type numGrammar struct {
	Globals `embed:""`
	Num     numCmd `cmd:""`
}

func runNum(args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	code := run("novel-test", "test tool", &numGrammar{}, append([]string{"num"}, args...), IO{In: strings.NewReader(""), Out: &out, Err: &errb})
	return out.String(), errb.String(), code
}

// Every int flag is decimal whatever its zero padding (kong's base 0 read
// 010 as 8); chapters and volumes are 1..999999.
func TestDecimalNumbers(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--chapter", "010"}, "\"10 -1 0\"\n"},
		{[]string{"--chapter", "08", "--volume", "09", "--round", "010"}, "\"8 9 10\"\n"},
		{[]string{"--chapter=0000999999", "--round", "0"}, "\"999999 -1 0\"\n"},
	} {
		out, errOut, code := runNum(c.args...)
		if code != 0 || out != c.want || errOut != "" {
			t.Errorf("%v: %d %q %q", c.args, code, out, errOut)
		}
	}
	for _, c := range []struct {
		args        []string
		flag, value string
	}{
		{[]string{"--chapter", "0x10"}, "--chapter", "0x10"},
		{[]string{"--chapter", "1_0"}, "--chapter", "1_0"},
		{[]string{"--chapter", "+1"}, "--chapter", "+1"},
		{[]string{"--chapter", "-1"}, "--chapter", "-1"},
		{[]string{"--chapter=-1"}, "--chapter", "-1"},
		{[]string{"--chapter", "0"}, "--chapter", "0"},
		{[]string{"--chapter", "1000000"}, "--chapter", "1000000"},
		{[]string{"--chapter", "99999999999999999999999"}, "--chapter", "99999999999999999999999"},
		{[]string{"--chapter", "１"}, "--chapter", "１"},
		{[]string{"--volume", "0"}, "--volume", "0"},
		{[]string{"--round", "-0"}, "--round", "-0"},
		{[]string{"--round", "0o7"}, "--round", "0o7"},
		{[]string{"--round", ""}, "--round", ""},
	} {
		out, errOut, code := runNum(c.args...)
		want := fmt.Sprintf(`"details":{"flag":%q,"value":%q}}}`, c.flag, c.value) + "\n"
		if code != 2 || out != "" || !strings.HasPrefix(errOut, `{"error":{"code":"E_USAGE","message":"`+c.flag) || !strings.HasSuffix(errOut, want) {
			t.Errorf("%v: %d %q %q", c.args, code, out, errOut)
		}
	}
}
