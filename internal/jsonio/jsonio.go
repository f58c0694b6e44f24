// Package jsonio reads project files leniently (BOM, size limit, clear
// line/column errors) and writes them canonically and atomically.
package jsonio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unicode/utf8"

	"github.com/novelsuite/novel/internal/errs"
)

// MaxFileSize is the largest file the suite reads (SPEC §1).
const MaxFileSize = 32 << 20

var bom = []byte{0xEF, 0xBB, 0xBF}

// StripBOM drops a leading UTF-8 byte-order mark.
func StripBOM(b []byte) []byte { return bytes.TrimPrefix(b, bom) }

// ReadFile reads abs (shown to the user as rel). A missing file is
// E_MISSING_FILE; a directory, an oversized file or a read failure is E_IO.
// The BOM is stripped.
func ReadFile(abs, rel string) ([]byte, error) {
	data, _, err := ReadFileInfo(abs, rel)
	return data, err
}

// ReadFileInfo is ReadFile that also returns the file's FileInfo, taken
// from the descriptor the bytes were read from (so a writer can later
// tell, by SameVersion, whether the file is still the one it read).
func ReadFileInfo(abs, rel string) ([]byte, os.FileInfo, error) {
	f, err := openRead(abs, rel)
	if err != nil {
		return nil, nil, err
	}
	return readOpen(f, rel)
}

func openRead(abs, rel string) (*os.File, error) {
	f, err := os.Open(abs)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, errs.Newf(errs.MissingFile, "缺少文件 %s", "missing file %s", rel).
				With("file", rel).Hint("确认该文件存在，或先运行生成它的步骤", "create the file or run the step that produces it")
		}
		return nil, errs.ReadFailed(rel, err)
	}
	return f, nil
}

// checkRegular refuses a directory and a file over MaxFileSize, as
// ReadFile does.
func checkRegular(st os.FileInfo, rel string) error {
	if st.IsDir() {
		return errs.Newf(errs.IO, "%s 是目录，应为文件", "%s is a directory, expected a file", rel).
			With("file", rel).Hint("删除或改名该目录，放入正确的文件", "remove or rename the directory and put the file there")
	}
	if st.Size() > MaxFileSize {
		return tooBig(rel)
	}
	return nil
}

// ReadPlainAt reads the plain file name in the open directory dir
// (relative to it, not following a symlink there), BOM stripped, using
// and returning scratch as its read buffer. Any failure — a symlink, a
// directory, a file over MaxFileSize, a missing or unreadable file — is
// an error without a message for the user: the caller reads the path the
// ordinary way (ReadFile), which reports it.
func ReadPlainAt(dir *os.File, name string, scratch []byte) (data, buf []byte, err error) {
	n, scratch, err := readPlainAt(dir, name, scratch)
	if err != nil {
		return nil, scratch, err
	}
	if n > MaxFileSize {
		return nil, scratch, errTooBig
	}
	return bytes.Clone(StripBOM(scratch[:n])), scratch, nil
}

var errTooBig = errors.New("larger than the limit")

// MapMin is the size from which MapFile maps a file instead of reading
// it: below it a read costs less than setting up a mapping.
const MapMin = 512 << 10

// MapFile returns abs (shown as rel) as ReadFile would — the same errors,
// the BOM stripped — but a file of MapMin bytes or more is mapped
// copy-on-write rather than read. It is for the few large files a short
// command scans (the state, the global foreshadowing): the mapping lives
// until the process exits, which every binary does within milliseconds.
// Safe because no writer changes a file in place — every write replaces
// the file by rename (a new inode), so the mapped bytes never change
// under the reader; a file truncated in place by another program is a
// fault that cli.Main turns into an internal error, not a crash.
func MapFile(abs, rel string) ([]byte, error) {
	f, err := openRead(abs, rel)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, errs.ReadFailed(rel, err)
	}
	if err := checkRegular(st, rel); err != nil {
		f.Close()
		return nil, err
	}
	if st.Size() < MapMin {
		data, _, err := readOpen(f, rel)
		return data, err
	}
	defer f.Close()
	data, err := mapOpen(f, st.Size())
	if err != nil {
		return nil, errs.ReadFailed(rel, err)
	}
	return StripBOM(data), nil
}

// readOpen reads the open file f (shown as rel) and closes it.
func readOpen(f *os.File, rel string) ([]byte, os.FileInfo, error) {
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, errs.ReadFailed(rel, err)
	}
	if err := checkRegular(st, rel); err != nil {
		return nil, nil, err
	}
	// Sized from Stat: io.ReadAll's doubling re-copies a 6 MB state file
	// about a dozen times. The spare MinRead bytes let the EOF read
	// happen without growing (a file that grew meanwhile still works).
	buf := bytes.NewBuffer(make([]byte, 0, st.Size()+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, MaxFileSize+1)); err != nil {
		return nil, nil, errs.ReadFailed(rel, err)
	}
	data := buf.Bytes()
	if len(data) > MaxFileSize {
		return nil, nil, tooBig(rel)
	}
	if int64(len(data)) != st.Size() {
		st = nil // changed while being read: no version to vouch for
	}
	return StripBOM(data), st, nil
}

// SameVersion reports whether the file at abs is still the version info
// describes: same inode, size and modification time. Every suite writer
// replaces files by rename (a new inode), so this tells a re-read apart
// from a changed file without reading megabytes again.
func SameVersion(abs string, info os.FileInfo) bool {
	if info == nil {
		return false
	}
	st, err := os.Stat(abs)
	return err == nil && os.SameFile(st, info) && st.Size() == info.Size() && st.ModTime().Equal(info.ModTime())
}

func tooBig(rel string) error {
	return errs.Newf(errs.IO, "%s 超过 32 MiB 上限", "%s is larger than the 32 MiB limit", rel).
		With("file", rel).With("limit_bytes", MaxFileSize).
		Hint("检查该文件是否被误写入了大量数据", "check whether the file was filled with unintended data")
}

// Decode parses data (one JSON value, nothing after it) into v. Syntax
// errors and invalid UTF-8 are E_INVALID_JSON with line and column; a
// value of the wrong type is E_SCHEMA naming the field.
func Decode(data []byte, rel string, v any) error {
	data = StripBOM(data)
	if !utf8.Valid(data) {
		off := FirstInvalidUTF8(data)
		line, col := LineCol(data, off)
		return invalidJSON(rel, "不是有效的 UTF-8", "is not valid UTF-8", line, col)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return invalidJSON(rel, "是空文件", "is empty", 1, 1)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return decodeErr(data, rel, err)
	}
	if dec.More() || trailing(dec) {
		off := int(dec.InputOffset())
		for off < len(data) && (data[off] == ' ' || data[off] == '\n' || data[off] == '\t' || data[off] == '\r') {
			off++
		}
		line, col := LineCol(data, off)
		return invalidJSON(rel, "JSON 值之后还有多余内容", "has extra data after the JSON value", line, col)
	}
	return nil
}

// jsonKind names the JSON type a Go type decodes from, so messages say
// "object", not "map[string]interface {}".
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == reflect.TypeOf(json.Number("")) {
		return "number"
	}
	switch t.Kind() {
	case reflect.Map, reflect.Struct:
		return "object"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "number"
	}
	return t.String()
}

func trailing(dec *json.Decoder) bool {
	_, err := dec.Token()
	return err != io.EOF
}

func decodeErr(data []byte, rel string, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		// Offset counts the offending byte too; point at it.
		off := int(se.Offset) - 1
		line, col := LineCol(data, off)
		msg := se.Error()
		if strings.HasPrefix(msg, "invalid character ") && off >= 0 && off < len(data) && data[off] >= utf8.RuneSelf {
			// encoding/json quotes the first byte of a multi-byte character;
			// name the whole character (e.g. 这, not è).
			r, _ := utf8.DecodeRune(data[off:])
			if i := strings.Index(msg, "' "); i > 0 {
				msg = "invalid character " + strconv.QuoteRune(r) + msg[i+1:]
			}
		}
		return invalidJSON(rel, "JSON 语法错误："+msg, "JSON syntax error: "+msg, line, col)
	case errors.As(err, &te):
		fieldZh, fieldEn := te.Field, te.Field
		if te.Field == "" {
			fieldZh, fieldEn = "(顶层)", "(top level)"
		}
		line, col := LineCol(data, int(te.Offset))
		want := jsonKind(te.Type)
		return errs.New(errs.Schema,
			fmt.Sprintf("%s 字段 %s 类型错误：应为 %s，实际为 %s", rel, fieldZh, want, te.Value),
			fmt.Sprintf("%s: field %s has the wrong type: want %s, got %s", rel, fieldEn, want, te.Value)).
			With("file", rel).With("field", te.Field).With("line", line).With("column", col).
			Hint("按 SPEC §2 的格式修正该字段", "fix the field to the documented schema")
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		line, col := LineCol(data, len(data))
		return invalidJSON(rel, "JSON 不完整（意外结束）", "JSON ends unexpectedly", line, col)
	}
	line, col := LineCol(data, len(data))
	return invalidJSON(rel, err.Error(), err.Error(), line, col)
}

func invalidJSON(rel, zh, en string, line, col int) error {
	return errs.New(errs.InvalidJSON, fmt.Sprintf("%s %s（第 %d 行第 %d 列）", rel, zh, line, col), fmt.Sprintf("%s %s (line %d, column %d)", rel, en, line, col)).
		With("file", rel).With("line", line).With("column", col).
		Hint("修正该文件的 JSON 后重试", "fix the JSON in that file and retry")
}

// Text returns file content as UTF-8 text, the BOM stripped. Content
// that is not UTF-8 (a GBK/GB18030 file saved by another editor) is
// E_SCHEMA naming rel with the line and column of the first bad byte, so
// such a file never reaches a prompt or a product as mojibake.
func Text(data []byte, rel string) (string, error) {
	data = StripBOM(data)
	if !utf8.Valid(data) {
		line, col := LineCol(data, FirstInvalidUTF8(data))
		return "", errs.New(errs.Schema, fmt.Sprintf("%s 不是有效的 UTF-8（第 %d 行第 %d 列）", rel, line, col),
			fmt.Sprintf("%s is not valid UTF-8 (line %d, column %d)", rel, line, col)).
			With("file", rel).With("line", line).With("column", col).
			Hint("以 UTF-8 编码重新保存该文件（GBK/GB18030 的书稿可用 novel import 导入）",
				"save the file again as UTF-8 (a GBK/GB18030 manuscript can be brought in with novel import)")
	}
	return string(data), nil
}

// FirstInvalidUTF8 is the offset of the first byte of b that does not
// start a valid UTF-8 sequence, len(b) when b is all valid (with LineCol,
// the position readers report for a non-UTF-8 file).
func FirstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// LineCol converts a byte offset into 1-based line and column (in runes).
func LineCol(data []byte, off int) (int, int) {
	if off > len(data) {
		off = len(data)
	}
	if off < 0 {
		off = 0
	}
	line := 1 + bytes.Count(data[:off], []byte{'\n'})
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	return line, utf8.RuneCount(data[start:off]) + 1
}

// ReadJSON reads and decodes abs into v (rel names it in errors).
func ReadJSON(abs, rel string, v any) error {
	data, err := ReadFile(abs, rel)
	if err != nil {
		return err
	}
	return Decode(data, rel, v)
}

// Marshal encodes v canonically: 2-space indent, no HTML escaping,
// trailing newline. Map keys come out sorted (encoding/json).
func Marshal(v any) ([]byte, error) {
	if m, ok := v.(CanonicalMarshaler); ok {
		return m.MarshalCanonical()
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// CanonicalMarshaler is a value that renders its own canonical form,
// byte for byte what Marshal would produce for it otherwise, faster (a
// large result need not go through the encoder's compact and indent
// passes). Marshal uses it.
type CanonicalMarshaler interface {
	MarshalCanonical() ([]byte, error)
}

// MarshalLine encodes v as one compact line with a trailing newline.
func MarshalLine(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Writer does the atomic writes of one caller (a command's
// project.Root owns one) and holds the state that makes them cheap: the
// temp files seen per directory and, while a transaction defers them, the
// directories whose fsync is pending. Its zero value is ready; a nil
// *Writer (the package-level WriteFile) lists a directory on each write
// and syncs at once.
type Writer struct {
	mu sync.Mutex
	// temps holds, per directory, the atomic-write temp files (".X.tmp-…")
	// seen when this writer first wrote there. A commit writes a dozen
	// files into directories of thousands of entries (state/, logs/,
	// evaluations/); listing each one per write cost several ms. A temp is
	// only ever left by a writer killed before this process started (or by
	// another process in the few ms it runs), so one listing per directory
	// is enough.
	temps map[string][]string
	// deferring, dirs and seen: the directory fsyncs recorded between
	// DeferDirSyncs and its flush, in first-recorded order.
	deferring bool
	dirs      []string
	seen      map[string]bool
}

// WriteFile writes data to path atomically: a temp file in the same
// directory, fsync, rename, then fsync of the directory. Parent
// directories are created.
func WriteFile(path string, data []byte) error {
	return (*Writer)(nil).WriteFile(path, data)
}

// WriteFile is the package-level WriteFile with w's listing cache and
// deferred directory syncs.
func (w *Writer) WriteFile(path string, data []byte) error {
	return w.WriteFileParts(path, [][]byte{data})
}

// WriteFileParts is WriteFile for content given as consecutive pieces
// (a spliced document is written without first joining it).
func (w *Writer) WriteFileParts(path string, parts [][]byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return writeErr(path, err)
	}
	return w.replaceFile(path, parts)
}

// replaceFile is the atomic write into an existing directory.
func (w *Writer) replaceFile(path string, parts [][]byte) error {
	dir := filepath.Dir(path)
	// The writer's pid is in the temp name, so a temp left by a killed
	// writer can be recognised and swept by the next write (sweepTemps).
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-"+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return writeErr(path, err)
	}
	name := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(name)
		}
	}()
	for _, data := range parts {
		if _, err := tmp.Write(data); err != nil {
			return writeErr(path, err)
		}
	}
	if err := tmp.Chmod(0o644); err != nil {
		return writeErr(path, err)
	}
	if err := tmp.Sync(); err != nil {
		return writeErr(path, err)
	}
	if err := tmp.Close(); err != nil {
		return writeErr(path, err)
	}
	if err := os.Rename(name, path); err != nil {
		return writeErr(path, err)
	}
	ok = true
	w.SyncDir(dir)
	w.sweepTemps(dir, filepath.Base(path))
	return nil
}

// sweepTemps removes temp files of base left by writers that died between
// create and rename (kill -9). A live writer's temp, or one without a pid,
// is left alone.
func (w *Writer) sweepTemps(dir, base string) {
	for _, name := range w.TempsOf(dir, base) {
		if target, ok := StaleTemp(name); ok && target == base {
			w.RemoveTemp(dir, name)
		}
	}
}

// TempsOf returns the names of the temp files of base's atomic writes
// (".{base}.tmp-*", any writer) in dir. The directory is listed once per
// Writer (every time for a nil one); RemoveTemp keeps the list current.
func (w *Writer) TempsOf(dir, base string) []string {
	var names []string
	if w == nil {
		names = listTemps(dir)
	} else {
		w.mu.Lock()
		defer w.mu.Unlock()
		var ok bool
		if names, ok = w.temps[dir]; !ok {
			names = listTemps(dir)
			if w.temps == nil {
				w.temps = map[string][]string{}
			}
			w.temps[dir] = names
		}
	}
	prefix := "." + base + ".tmp-"
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}

// RemoveTemp deletes dir/name (a temp file found by TempsOf).
func (w *Writer) RemoveTemp(dir, name string) {
	os.Remove(filepath.Join(dir, name))
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	names := w.temps[dir]
	for i, n := range names {
		if n == name {
			w.temps[dir] = append(names[:i:i], names[i+1:]...)
			break
		}
	}
}

// listTemps lists the temp-file names of dir (unsorted, no stat).
func listTemps(dir string) []string {
	d, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer d.Close()
	all, _ := d.Readdirnames(-1)
	var out []string
	for _, n := range all {
		if len(n) > 1 && n[0] == '.' && strings.Contains(n, ".tmp-") {
			out = append(out, n)
		}
	}
	return out
}

// StaleTemp reports whether name is the temp file of an atomic write
// (".{target}.tmp-{pid}-{random}") whose writer is no longer running, and
// the target's name. Cleanup code uses it to remove what a kill -9 left.
func StaleTemp(name string) (target string, ok bool) {
	if !strings.HasPrefix(name, ".") {
		return "", false
	}
	i := strings.LastIndex(name, ".tmp-")
	if i <= 1 {
		return "", false
	}
	pidStr, _, found := strings.Cut(name[i+len(".tmp-"):], "-")
	pid, err := strconv.Atoi(pidStr)
	if !found || err != nil || pid <= 0 || pid == os.Getpid() || processAlive(pid) {
		return "", false
	}
	return name[1:i], true
}

// processAlive: signal 0 reaches the pid (EPERM: it exists, not ours)
// and it is not a zombie — a killed writer whose parent died too may wait
// a while for init to reap it.
func processAlive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // no /proc: trust the signal
	}
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z' && stat[i+2] != 'X'
	}
	return true
}

// SyncDir fsyncs a directory so a rename inside it is durable. Errors are
// ignored: some file systems do not support it. Between DeferDirSyncs and
// its flush the directory is only recorded.
func (w *Writer) SyncDir(dir string) {
	if w != nil {
		w.mu.Lock()
		if w.deferring {
			if !w.seen[dir] {
				w.seen[dir] = true
				w.dirs = append(w.dirs, dir)
			}
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()
	}
	SyncDirNow(dir)
}

// DeferDirSyncs batches w's directory fsyncs: until the returned flush
// runs, SyncDir (and so every atomic write's directory fsync) only
// records the directory; flush fsyncs each recorded directory once, in
// the order first recorded. For a sequence of idempotent steps whose
// completion is marked by a later durable change (a commit journal
// deleted after the flush), a dozen writes into a few directories then
// cost one fsync per directory. A rename that must be durable before the
// next write uses w.SyncNow. flush may be called more than once.
func (w *Writer) DeferDirSyncs() (flush func()) {
	w.mu.Lock()
	w.deferring, w.dirs, w.seen = true, nil, map[string]bool{}
	w.mu.Unlock()
	return func() {
		w.mu.Lock()
		dirs := w.dirs
		w.deferring, w.dirs, w.seen = false, nil, nil
		w.mu.Unlock()
		for _, d := range dirs {
			SyncDirNow(d)
		}
	}
}

// SyncNow fsyncs a directory now, even while w defers syncs (and takes it
// off the deferred list).
func (w *Writer) SyncNow(dir string) {
	if w != nil {
		w.mu.Lock()
		if w.seen[dir] {
			delete(w.seen, dir)
			for i, d := range w.dirs {
				if d == dir {
					w.dirs = append(w.dirs[:i:i], w.dirs[i+1:]...)
					break
				}
			}
		}
		w.mu.Unlock()
	}
	SyncDirNow(dir)
}

// SyncDirNow fsyncs a directory now. Errors are ignored: some file
// systems do not support it.
func SyncDirNow(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

func writeErr(path string, err error) error {
	return errs.Newf(errs.IO, "写入 %s 失败：%v", "cannot write %s: %v", path, err).With("file", path).Wrap(err).
		Hint("检查该路径不是目录、所在目录可写、磁盘未满，然后重试", "check that the path is not a directory, its directory is writable and the disk is not full, then retry")
}

// WriteJSON writes v canonically and atomically.
func WriteJSON(path string, v any) error {
	return (*Writer)(nil).WriteJSON(path, v)
}

// WriteJSON is the package-level WriteJSON through w.
func (w *Writer) WriteJSON(path string, v any) error {
	data, err := Marshal(v)
	if err != nil {
		return errs.Newf(errs.IO, "无法编码 %s：%v", "cannot encode %s: %v", path, err)
	}
	return w.WriteFile(path, data)
}

// Int reads a json.Number (or float64/int) as an int; ok is false for
// non-integers and other types.
func Int(v any) (int, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := strconv.ParseInt(string(n), 10, 64)
		if err != nil {
			f, ferr := n.Float64()
			if ferr != nil || f != float64(int64(f)) {
				return 0, false
			}
			return int(f), true
		}
		return int(i), true
	case float64:
		if n != float64(int64(n)) {
			return 0, false
		}
		return int(n), true
	case int:
		return n, true
	case int64:
		return int(n), true
	}
	return 0, false
}

// RawInt reads a bare JSON integer field (a quoted "48" is not one):
// the one lenient reader of integer fields kept raw.
func RawInt(r json.RawMessage) (int, bool) {
	r = bytes.TrimSpace(r)
	if len(r) == 0 || (r[0] != '-' && (r[0] < '0' || r[0] > '9')) {
		return 0, false
	}
	var n json.Number
	dec := json.NewDecoder(bytes.NewReader(r))
	dec.UseNumber()
	if dec.Decode(&n) != nil {
		return 0, false
	}
	return Int(n)
}

// RawFloat reads a bare JSON number field.
func RawFloat(r json.RawMessage) (float64, bool) {
	r = bytes.TrimSpace(r)
	if len(r) == 0 || (r[0] != '-' && (r[0] < '0' || r[0] > '9')) {
		return 0, false
	}
	var n json.Number
	if json.Unmarshal(r, &n) != nil {
		return 0, false
	}
	return Float(n)
}

// Float reads a number as float64.
func Float(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}

// IntRange reads a JSON [a, b] of two integers with 1 ≤ a ≤ b ≤ 2^31 (a
// chapter range). Anything else (null, strings such as "12", floats with
// a fraction, another length) is not a range.
func IntRange(raw []byte) (a, b int, ok bool) {
	var xs []any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&xs) != nil || len(xs) != 2 {
		return 0, 0, false
	}
	n1, ok1 := xs[0].(json.Number) // a quoted "12" is a string, not a chapter
	n2, ok2 := xs[1].(json.Number)
	if !ok1 || !ok2 {
		return 0, 0, false
	}
	x, err1 := n1.Int64()
	y, err2 := n2.Int64()
	if err1 != nil || err2 != nil || x < 1 || x > y || y > 1<<31 {
		return 0, 0, false
	}
	return int(x), int(y), true
}

// NullIfEmpty is s, or nil (JSON null) when s is empty: the optional
// string fields of the suite's files are null when unset, never "".
func NullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// TypeName formats a short description of v's JSON type for error messages.
func TypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number, float64, int, int64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}
