package main

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// TestRecipesOfDoc: docs/scale.md's DuckDB section holds the two recipes
// the command runs, each one statement in its own block.
func TestRecipesOfDoc(t *testing.T) {
	doc, err := os.ReadFile("../../docs/scale.md")
	if err != nil {
		t.Fatal(err)
	}
	recipes, err := Recipes(doc, "### DuckDB")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"log-spaced", "fixed"} {
		r, err := Find(recipes, name)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(r.Title, "-- ") || !strings.Contains(r.SQL, "FROM payments") || strings.HasSuffix(r.SQL, ";") {
			t.Errorf("%s: line %d: %q…: want a commented query on payments without its semicolon", name, r.Line, r.SQL[:min(len(r.SQL), 60)])
		}
	}
}

func TestRecipes(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		want      []Recipe // nil: an error
	}{
		{"one", "# x\n### DuckDB\n\n```sql\n-- a\nSELECT 1;\n```\n", []Recipe{{"-- a", "-- a\nSELECT 1", 4}}},
		{"two, then another heading", "### DuckDB\n```sql\n-- a; b\nSELECT 1\n```\ntext\n```sql\n-- c\nSELECT 2;\n```\n### Spark\n```sql\n-- d\nSELECT 3\n```\n",
			[]Recipe{{"-- a; b", "-- a; b\nSELECT 1", 2}, {"-- c", "-- c\nSELECT 2", 7}}},
		{"other languages skipped", "### DuckDB\n```console\n$ x\n```\n```sql\nSELECT 1\n```\n", []Recipe{{"SELECT 1", "SELECT 1", 5}}},
		{"two statements", "### DuckDB\n```sql\nSELECT 1;\nSELECT 2;\n```\n", nil},
		{"unterminated", "### DuckDB\n```sql\nSELECT 1\n", nil},
		{"no block", "### DuckDB\ntext\n### Spark\n```sql\nSELECT 1\n```\n", nil},
		{"no heading", "```sql\nSELECT 1\n```\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Recipes([]byte(tc.doc), "### DuckDB")
			switch {
			case tc.want == nil && err == nil:
				t.Errorf("Recipes = %+v, want an error", got)
			case tc.want != nil && err != nil:
				t.Errorf("Recipes: %v", err)
			case tc.want != nil && !slices.Equal(got, tc.want):
				t.Errorf("Recipes = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestFind(t *testing.T) {
	rs := []Recipe{{Title: "-- log-spaced bins"}, {Title: "-- fixed 1 s bins"}, {Title: "-- fixed 5 s bins"}}
	if r, err := Find(rs, "log-spaced"); err != nil || r != rs[0] {
		t.Errorf("Find(log-spaced) = %v, %v; want %v", r, err, rs[0])
	}
	for _, name := range []string{"fixed", "hourly"} {
		if r, err := Find(rs, name); err == nil {
			t.Errorf("Find(%s) = %v, want an error (2 and 0 match)", name, r)
		}
	}
}

// FuzzRecipes: any text parses without a panic into recipes of one
// statement each, whose SQL starts with their title.
func FuzzRecipes(f *testing.F) {
	if doc, err := os.ReadFile("../../docs/scale.md"); err == nil {
		f.Add(string(doc))
	}
	f.Add("### DuckDB\n```sql\n-- a\nSELECT 1;\n```\n")
	f.Fuzz(func(t *testing.T, doc string) {
		rs, err := Recipes([]byte(doc), "### DuckDB")
		if err != nil {
			return
		}
		for _, r := range rs {
			if statements(r.SQL) > 1 || !strings.HasPrefix(r.SQL, r.Title) || r.Line < 1 {
				t.Errorf("recipe %+v: want one statement starting with its title", r)
			}
		}
	})
}
