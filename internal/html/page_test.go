package html

import (
	"bytes"
	"strings"
	"testing"
)

// TestWriteEscapes: text from the data (a title, a segment's name, a
// spec) is escaped in the page and in the slider's JSON, and the page
// declares its policy of loading nothing.
func TestWriteEscapes(t *testing.T) {
	evil := `</script><img src=x onerror=alert(1)>`
	p := &Page{
		Title: "report " + evil, Version: "test", Command: "pollfit report",
		Parts: []Part{{ID: "all", Title: "Segment " + evil, Spec: evil,
			Budget: Budget{Steps: []Step{{Label: evil, Spec: evil, Polls: []float64{0, 0.5, 1}}}}}},
	}
	var b bytes.Buffer
	if err := Write(&b, p); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	if strings.Contains(s, evil) || strings.Contains(s, "<img") {
		t.Errorf("the page holds %q unescaped", evil)
	}
	if !strings.Contains(s, `\u003c/script\u003e`) {
		t.Error("the slider's JSON does not escape </script>")
	}
	if !strings.Contains(s, `content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"`) {
		t.Error("the page has no Content-Security-Policy that forbids loading")
	}
}
