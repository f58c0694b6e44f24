package cli

import (
	"fmt"
	"math"
	"reflect"
	"strconv"

	"github.com/alecthomas/kong"

	"github.com/novelsuite/novel/internal/errs"
	"github.com/novelsuite/novel/internal/stepid"
)

// Numbers on the command line are decimal (SPEC §1): kong reads ints with
// base prefixes, so "010" was 8 and "08" an error, while every file is
// named chapter-010.md. These mappers replace kong's for every int flag of
// every binary: ASCII digits only, zero padding allowed, no sign, no 0x,
// no underscores. A field tagged `type:"chapter"` or `type:"volume"` is
// also held to 1..999999.
var numberMappers = []kong.Option{
	kong.TypeMapper(reflect.TypeOf(0), numberMapper{min: 0, max: math.MaxInt32}),
	kong.NamedMapper("chapter", numberMapper{min: 1, max: stepid.MaxNumber}),
	kong.NamedMapper("volume", numberMapper{min: 1, max: stepid.MaxNumber}),
}

type numberMapper struct{ min, max int }

func (m numberMapper) Decode(ctx *kong.DecodeContext, target reflect.Value) error {
	if v, ok := ctx.Scan.Peek().Value.(string); ok && len(v) > 1 && v[0] == '-' && v[1] >= '0' && v[1] <= '9' {
		// "--chapter -1": kong would call it a short flag and suggest
		// --chapter="-1", which is refused too; name the number instead.
		ctx.Scan.Pop()
		return m.refuse(ctx.Value, v)
	}
	t, err := ctx.Scan.PopValue("number")
	if err != nil {
		return err
	}
	s := fmt.Sprint(t.Value)
	n, ok := stepid.Decimal(s)
	if !ok || n < m.min || n > m.max {
		return m.refuse(ctx.Value, s)
	}
	if target.Kind() == reflect.Ptr {
		v := reflect.New(target.Type().Elem())
		v.Elem().SetInt(int64(n))
		target.Set(v)
		return nil
	}
	target.SetInt(int64(n))
	return nil
}

func (m numberMapper) refuse(v *kong.Value, got string) *errs.Error {
	name := "<" + v.Name + ">"
	if v.Flag != nil {
		name = "--" + v.Name
	}
	var zh, en string
	if m.min == 0 {
		zh, en = name+" 必须是十进制非负整数", name+" must be a non-negative decimal integer"
	} else {
		zh = fmt.Sprintf("%s 必须是 %d 到 %d 的十进制整数", name, m.min, m.max)
		en = fmt.Sprintf("%s must be a decimal integer %d..%d", name, m.min, m.max)
	}
	return errs.New(errs.Usage, zh+"，实际为 "+strconv.Quote(got), en+", got "+strconv.Quote(got)).
		With("flag", name).With("value", got).
		Hint("只写数字，可以补零（010 即 10）；不接受正负号、0x 和下划线",
			"write digits only, zero padding allowed (010 is 10); no sign, 0x or underscores")
}
