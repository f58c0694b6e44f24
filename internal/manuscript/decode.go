// Package manuscript reads an author's existing manuscript for novel import
// (SPEC §23): it detects the text encoding (UTF-8, UTF-8 with BOM, GB18030 /
// GBK) and splits the text into chapters at chapter headings.
package manuscript

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/simplifiedchinese"

	"github.com/novelsuite/novel/internal/errs"
)

// Encodings reported by Decode.
const (
	UTF8    = "utf-8"
	UTF8BOM = "utf-8-bom"
	GB18030 = "gb18030" // GBK and GB2312 files are GB18030 too
)

var bomUTF8 = []byte{0xEF, 0xBB, 0xBF}

// Decode returns data as UTF-8 text and the encoding it was in. Valid UTF-8
// wins (a Chinese GBK text is practically never valid UTF-8); anything else
// must decode as GB18030 without a single replacement character, else it is
// E_SCHEMA naming the file — never mojibake in a chapter.
func Decode(data []byte, file string) (text, encoding string, err error) {
	switch {
	case bytes.HasPrefix(data, bomUTF8):
		data, encoding = data[len(bomUTF8):], UTF8BOM
		if !utf8.Valid(data) {
			return "", "", notText(file, "以 UTF-8 BOM 开头，但内容不是 UTF-8", "starts with a UTF-8 BOM but is not UTF-8")
		}
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}) || bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		return "", "", notText(file, "是 UTF-16 编码", "is UTF-16")
	case utf8.Valid(data):
		encoding = UTF8
	default:
		dec, derr := simplifiedchinese.GB18030.NewDecoder().Bytes(data)
		if derr != nil || bytes.ContainsRune(dec, utf8.RuneError) {
			return "", "", notText(file, "既不是 UTF-8 也不是 GB18030/GBK", "is neither UTF-8 nor GB18030/GBK")
		}
		data, encoding = dec, GB18030
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return "", "", notText(file, "含有 NUL 字节（不是文本文件）", "contains NUL bytes (not a text file)")
	}
	text = strings.ReplaceAll(string(data), "\r\n", "\n")
	return strings.ReplaceAll(text, "\r", "\n"), encoding, nil
}

func notText(file, zh, en string) error {
	return errs.New(errs.Schema, file+" "+zh, file+" "+en).With("file", file).
		Hint("把文件另存为 UTF-8 或 GB18030（GBK）文本后重试", "re-save the file as UTF-8 or GB18030 (GBK) text and retry")
}
