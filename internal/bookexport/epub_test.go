package bookexport

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func testBook() *Book {
	return &Book{Title: "守灯人", Author: "青山", ID: "urn:uuid:7d3c3c1e-6a58-4c1f-9a43-2f0e5b9d4a11", Lang: "zh", From: 1, To: 2, Whole: true, Chapters: []Chapter{
		{Number: 1, Heading: "第1章 第七盏灯", Paragraphs: []string{"子时三刻。", "「灯<亮>了 & 灭了」"}},
		{Number: 2, Heading: "第2章 山下来客", Paragraphs: []string{"天刚亮。"}},
	}}
}

func readZip(t *testing.T, data []byte) (names []string, files map[string]string, first *zip.File) {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	files = map[string]string{}
	for _, f := range zr.File {
		names = append(names, f.Name)
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		files[f.Name] = string(b)
	}
	return names, files, zr.File[0]
}

func TestEPUBStructure(t *testing.T) {
	data, err := testBook().EPUB()
	if err != nil {
		t.Fatal(err)
	}
	names, files, first := readZip(t, data)
	// OCF: mimetype first and stored, so readers can sniff the type.
	if first.Name != "mimetype" || first.Method != zip.Store || files["mimetype"] != "application/epub+zip" {
		t.Fatalf("mimetype entry: %s method %d %q", first.Name, first.Method, files["mimetype"])
	}
	want := []string{"mimetype", "EPUB/css/book.css", "EPUB/nav.xhtml", "EPUB/package.opf", "EPUB/toc.ncx",
		"EPUB/xhtml/chapter-001.xhtml", "EPUB/xhtml/chapter-002.xhtml", "EPUB/xhtml/title.xhtml", "META-INF/container.xml"}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Fatalf("entries\n got %v\nwant %v", names, want)
	}
	opf := files["EPUB/package.opf"]
	for _, s := range []string{`<dc:title>守灯人</dc:title>`, `<dc:language>zh</dc:language>`, `<dc:creator id="creator">青山</dc:creator>`,
		`>urn:uuid:7d3c3c1e-6a58-4c1f-9a43-2f0e5b9d4a11</dc:identifier>`, `version="3.0"`} {
		if !strings.Contains(opf, s) {
			t.Errorf("package.opf lacks %s:\n%s", s, opf)
		}
	}
	nav := files["EPUB/nav.xhtml"]
	i1, i2 := strings.Index(nav, "第1章 第七盏灯"), strings.Index(nav, "第2章 山下来客")
	if i1 < 0 || i2 < i1 {
		t.Errorf("nav lists the chapters out of order or not at all:\n%s", nav)
	}
	ch1 := files["EPUB/xhtml/chapter-001.xhtml"]
	for _, s := range []string{"<h1>第1章 第七盏灯</h1>", "<p>子时三刻。</p>", "<p>「灯&lt;亮&gt;了 &amp; 灭了」</p>", `href="../css/book.css"`} {
		if !strings.Contains(ch1, s) {
			t.Errorf("chapter-001.xhtml lacks %s:\n%s", s, ch1)
		}
	}
}

func TestStripControls(t *testing.T) {
	got, removed := stripControls("铃\a响\x00了\t。\x7f\u0085\uffff\n")
	if got != "铃响了\t。\n" || string(removed) != "\a\x00\x7f\u0085\uffff" {
		t.Fatalf("stripControls: %q, removed %q", got, string(removed))
	}
}

// TestEveryPageIsXML: a chapter holding every code point below U+00A0
// (and U+FFFE/U+FFFF) becomes pages that parse as XML once the controls
// are stripped, as Load strips them.
func TestEveryPageIsXML(t *testing.T) {
	var all []rune
	for r := rune(0); r < 0xa0; r++ {
		all = append(all, r)
	}
	text, _ := stripControls(string(append(all, 0xfffe, 0xffff)))
	b := testBook()
	b.Chapters[0].Paragraphs = []string{strings.ReplaceAll(text, "\n", "")}
	data, err := b.EPUB()
	if err != nil {
		t.Fatal(err)
	}
	_, files, _ := readZip(t, data)
	for name, body := range files {
		if !strings.HasSuffix(name, ".xhtml") && !strings.HasSuffix(name, ".opf") && !strings.HasSuffix(name, ".ncx") {
			continue
		}
		d := xml.NewDecoder(strings.NewReader(body))
		for {
			if _, err := d.Token(); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("%s is not XML: %v", name, err)
			}
		}
	}
}

func TestLanguage(t *testing.T) {
	zh := []Chapter{{Paragraphs: []string{"陆照说：「OK，走吧。」他提起灯。"}}}
	en := []Chapter{{Paragraphs: []string{"Lu Zhao carried the oil can (油壶) up the stairs."}}}
	if language(zh) != "zh" || language(en) != "en" {
		t.Fatalf("language: %s %s", language(zh), language(en))
	}
}

// TestEPUBCheck validates the file with epubcheck (Debian's package, run by
// java) when it is installed; .ci/run installs it where the package can be had.
func TestEPUBCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("-short (make test): the Java validator runs in make test-long")
	}
	jar := "/usr/share/java/epubcheck.jar"
	java, err := exec.LookPath("java")
	if _, statErr := os.Stat(jar); statErr != nil || err != nil {
		t.Skip("epubcheck not installed (apt-get install epubcheck)")
	}
	data, err := testBook().EPUB()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "book.epub")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(java, "-jar", jar, p).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "No errors or warnings detected") {
		t.Fatalf("epubcheck: %v\n%s", err, out)
	}
}

// Two exports of the same book at the same suite time are the same bytes:
// the package's dcterms:modified is the book's Modified (NOVEL_NOW when
// set), not the wall clock go-epub would write (dogfood finding).
func TestEPUBIsReproducible(t *testing.T) {
	b := testBook()
	b.Modified = time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC)
	one, err := b.EPUB()
	if err != nil {
		t.Fatal(err)
	}
	two, err := b.EPUB()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(one, two) {
		t.Error("two exports of the same book differ")
	}
	_, files, _ := readZip(t, one)
	if want := `<meta property="dcterms:modified">2026-11-01T08:00:00Z</meta>`; !strings.Contains(files["EPUB/package.opf"], want) {
		t.Errorf("package.opf lacks %s:\n%s", want, files["EPUB/package.opf"])
	}
}
