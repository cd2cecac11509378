package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/cpuguy83/go-md2man/v2/md2man"
	"github.com/urfave/cli/v2"

	"github.com/pollfit/pollfit/internal/app"
)

// Categories of flags, in the order help lists them: the pipeline's.
const (
	catInput  = "input"
	catFit    = "fit"
	catSolve  = "solve"
	catScore  = "score"
	catOutput = "output"
)

var categories = []string{catInput, catFit, catSolve, catScore, catOutput}

// inCategory puts the flags in the category cat and returns them.
func inCategory(cat string, fs []cli.Flag) []cli.Flag {
	for _, f := range fs {
		switch f := f.(type) {
		case *cli.StringFlag:
			f.Category = cat
		case *cli.StringSliceFlag:
			f.Category = cat
		case *cli.IntFlag:
			f.Category = cat
		case *cli.Uint64Flag:
			f.Category = cat
		case *cli.Float64Flag:
			f.Category = cat
		case *cli.BoolFlag:
			f.Category = cat
		case *cli.DurationFlag:
			f.Category = cat
		default:
			panic(fmt.Sprintf("pollfit: inCategory: flag %T has no category to set", f))
		}
	}
	return fs
}

// commandCategories place the flags that commands define for themselves
// (not through inputFlags, solveFlags, fitFlags, contestFlags or
// scoreFlags), by name.
var commandCategories = map[string]string{
	"dist": catInput, "schedule": catInput, "density": catInput,
	"horizon": catFit, // fit's own: the last grid time
	"budgets": catSolve, "mean-polls-range": catSolve,
	"holdout": catScore, "in-sample": catScore, "seed": catScore, "draws": catScore,
	"at": catOutput, "format": catOutput, "plot": catOutput, "output": catOutput, "polls": catOutput, "title": catOutput,
	"lang": catOutput, "template": catOutput, "package": catOutput, "name": catOutput, "jitter": catOutput, "tests": catOutput,
}

// categorize puts each flag of c that has no category in its
// commandCategories one.
func categorize(c *cli.Command) {
	for _, f := range c.Flags {
		if cf, ok := f.(cli.CategorizableFlag); ok && cf.GetCategory() == "" {
			if cat, ok := commandCategories[f.Names()[0]]; ok {
				inCategory(cat, []cli.Flag{f})
			}
		}
	}
}

// placeholders name the value of a flag in help, where its usage has no
// `NAME` of its own: "--budget N". Flags not listed here take one by
// their type, or their name in capitals.
var placeholders = map[string]string{
	"column": "COLUMN", "start": "COLUMN", "end": "COLUMN", "status": "COLUMN", "segment": "COLUMN",
	"unit": "UNIT", "epoch": "UNIT", "pending": "VALUES", "exclude-status": "VALUES", "observed-at": "TIME",
	"delimiter": "CHAR", "horizon": "DURATION", "resolution": "DURATION", "min-gap": "DURATION", "max-gap": "DURATION",
	"nice-gaps": "DURATIONS", "nice-bounds": "DURATIONS", "phases": "K", "method": "METHOD", "fit-method": "METHOD",
	"bandwidth": "RULE", "domain": "DOMAIN", "atoms": "MODE", "at": "AGES", "format": "FORMAT", "holdout": "SHARE",
	"families": "LIST", "schedule": "SPEC", "lang": "LANG", "package": "NAME", "name": "NAME", "jitter": "JITTER",
	"mean-polls": "M", "budget": "N", "negative": "POLICY",
}

// placeholder names the value of flag f in help.
func placeholder(f cli.Flag) string {
	name := f.Names()[0]
	if p, ok := placeholders[name]; ok {
		return p
	}
	switch f.(type) {
	case *cli.IntFlag, *cli.Uint64Flag:
		return "N"
	case *cli.Float64Flag:
		return "X"
	case *cli.DurationFlag:
		return "DURATION"
	}
	return strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// defaultFlagStringer is urfave/cli's, which flagStringer wraps.
var defaultFlagStringer = cli.FlagStringer

// flagStringer writes a flag's help line as urfave/cli does, with the
// flag's placeholder where cli would write a bare "value".
func flagStringer(f cli.Flag) string {
	s := defaultFlagStringer(f)
	names, rest, ok := strings.Cut(s, "\t")
	if !ok {
		return s
	}
	words := strings.Split(names, " ")
	for i, w := range words {
		if strings.TrimSuffix(w, ",") == "value" {
			words[i] = strings.Replace(w, "value", placeholder(f), 1)
		}
	}
	return strings.Join(words, " ") + "\t" + rest
}

func init() {
	cli.FlagStringer = flagStringer
	cli.HelpPrinter = func(w io.Writer, templ string, data any) {
		cli.HelpPrinterCustom(w, templ, data, map[string]any{"flagGroups": flagGroups})
	}
}

// commandHelp is the help of a command: urfave/cli's, with the options
// grouped by category in the pipeline's order (flagGroups).
const commandHelp = `NAME:
   {{template "helpNameTemplate" .}}

USAGE:
   {{template "usageTemplate" .}}{{if .Description}}

DESCRIPTION:
   {{template "descriptionTemplate" .}}{{end}}
{{range flagGroups .}}
{{.Name}}:
{{range .Lines}}   {{.}}
{{end}}{{end}}`

// flagGroup is a category of a command's flags, for help and the man page.
type flagGroup struct {
	Name  string // "INPUT OPTIONS"
	Cat   string // "input"
	Flags []cli.Flag
	Lines []string // each flag's help line (flagStringer)
}

// flagGroups groups the command's visible flags by category, in the order
// of categories and then of their definition; flags of no category (help)
// come last, as "OPTIONS".
func flagGroups(c *cli.Command) []flagGroup {
	var out []flagGroup
	for _, cat := range append(slices.Clone(categories), "") {
		g := flagGroup{Name: strings.ToUpper(cat) + " OPTIONS", Cat: cat}
		if cat == "" {
			g.Name = "OPTIONS"
		}
		for _, f := range c.VisibleFlags() {
			fc := ""
			if cf, ok := f.(cli.CategorizableFlag); ok {
				fc = cf.GetCategory()
			}
			if fc == cat {
				g.Flags = append(g.Flags, f)
				g.Lines = append(g.Lines, f.String())
			}
		}
		if len(g.Flags) > 0 {
			out = append(out, g)
		}
	}
	return out
}

// helpAction answers pollfit help [COMMAND].
func helpAction(c *cli.Context) error {
	name := c.Args().Get(1)
	if name == "" {
		return cli.ShowAppHelp(c)
	}
	if c.App.Command(name) == nil {
		return &app.UsageError{Err: fmt.Errorf("help %s: no such command (see pollfit --help)", name)}
	}
	return cli.ShowCommandHelp(c, name)
}

// fileFlags take a file name (shell completion completes them as files).
var fileFlags = map[string]bool{"input": true, "output": true, "plot": true, "density": true, "template": true, "schedule": true}

// flagChoices are the values a flag of the command takes, for shell
// completion; nil for free values.
func flagChoices(cmd, flag string) []string {
	switch flag {
	case "format":
		switch cmd {
		case "plan":
			return []string{"table", "json"}
		case "fit":
			return []string{"json", "csv"}
		}
		return []string{"table", "json", "csv"}
	case "method":
		if cmd == "fit" {
			return fitMethods
		}
		return []string{"exact", "sqrt"}
	case "fit-method":
		return fitMethods
	case "lang":
		return []string{"go", "json", "ts", "kotlin", "swift"}
	case "phases":
		return []string{"auto", "exact", "1", "2", "3", "4", "5", "6", "7", "8"}
	case "bandwidth":
		return []string{"isj", "sj", "silverman", "scott"}
	case "domain":
		return []string{"log", "linear", "reflect"}
	case "atoms":
		return []string{"auto", "off"}
	case "unit":
		return []string{"ns", "us", "ms", "s", "m", "h", "d"}
	case "epoch":
		return []string{"s", "ms", "us", "ns"}
	case "negative":
		return []string{"error", "drop", "zero"}
	case "jitter":
		return []string{"none", "full", "equal", "decorrelated"}
	}
	return nil
}

var fitMethods = []string{"kde", "histogram", "lognormal", "weibull", "gamma", "exponential", "lognormal-mixture"}

// shells are the shells pollfit completion writes scripts for.
var shells = []string{"bash", "zsh", "fish"}

func completionCommand(stdout io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script: bash, zsh or fish",
		UsageText: "pollfit completion bash|zsh|fish\n   bash: source <(pollfit completion bash)   zsh: source <(pollfit completion zsh)   fish: pollfit completion fish | source",
		Action: func(c *cli.Context) error {
			shell := c.Args().First()
			if c.Args().Len() != 1 || !slices.Contains(shells, shell) {
				return &app.UsageError{Err: fmt.Errorf("completion: name one shell: bash, zsh or fish")}
			}
			return writeCompletion(stdout, c.App, shell)
		},
	}
}

func manCommand(stdout io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "man",
		Usage:     "print the manual page (roff), made from the commands' definitions",
		UsageText: "pollfit man > ~/.local/share/man/man1/pollfit.1",
		Action: func(c *cli.Context) error {
			_, err := io.WriteString(stdout, manPage(c.App))
			return err
		},
	}
}

// visibleCommands are the app's commands in order, help and completion
// tools included.
func visibleCommands(a *cli.App) []*cli.Command {
	var out []*cli.Command
	for _, c := range a.Commands {
		if !c.Hidden {
			out = append(out, c)
		}
	}
	return out
}

// writeCompletion writes the completion script of the shell for the app's
// commands and flags.
func writeCompletion(w io.Writer, a *cli.App, shell string) error {
	var b strings.Builder
	cmds := visibleCommands(a)
	var names []string
	for _, c := range cmds {
		names = append(names, c.Name)
	}
	names = append(names, "help")
	switch shell {
	case "bash":
		fmt.Fprintf(&b, "# bash completion for pollfit: source <(pollfit completion bash)\n_pollfit() {\n")
		b.WriteString("\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n")
		fmt.Fprintf(&b, "\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n\t\tCOMPREPLY=($(compgen -W %q -- \"$cur\"))\n\t\treturn\n\tfi\n", strings.Join(names, " "))
		b.WriteString("\tcase ${COMP_WORDS[1]} in\n")
		fmt.Fprintf(&b, "\thelp) COMPREPLY=($(compgen -W %q -- \"$cur\")) ;;\n", strings.Join(names[:len(names)-1], " "))
		for _, c := range cmds {
			fmt.Fprintf(&b, "\t%s)\n", c.Name)
			if c.Name == "completion" {
				fmt.Fprintf(&b, "\t\tCOMPREPLY=($(compgen -W %q -- \"$cur\")) ;;\n", strings.Join(shells, " "))
				continue
			}
			b.WriteString("\t\tcase $prev in\n")
			var all []string
			for _, f := range c.VisibleFlags() {
				var opts []string
				for _, n := range f.Names() {
					opts = append(opts, dashes(n))
				}
				all = append(all, opts...)
				tv, ok := f.(cli.DocGenerationFlag)
				if !ok || !tv.TakesValue() {
					continue
				}
				switch {
				case fileFlags[f.Names()[0]]:
					fmt.Fprintf(&b, "\t\t%s) compopt -o filenames; COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n", strings.Join(opts, "|"))
				case flagChoices(c.Name, f.Names()[0]) != nil:
					fmt.Fprintf(&b, "\t\t%s) COMPREPLY=($(compgen -W %q -- \"$cur\")); return ;;\n", strings.Join(opts, "|"), strings.Join(flagChoices(c.Name, f.Names()[0]), " "))
				default:
					fmt.Fprintf(&b, "\t\t%s) COMPREPLY=(); return ;;\n", strings.Join(opts, "|"))
				}
			}
			b.WriteString("\t\tesac\n")
			fmt.Fprintf(&b, "\t\tCOMPREPLY=($(compgen -W %q -- \"$cur\")) ;;\n", strings.Join(all, " "))
		}
		b.WriteString("\tesac\n}\ncomplete -F _pollfit pollfit\n")
	case "zsh":
		b.WriteString("#compdef pollfit\n# zsh completion for pollfit: source <(pollfit completion zsh), or save as _pollfit on $fpath\n_pollfit() {\n")
		b.WriteString("\tlocal -a commands\n\tcommands=(\n")
		for _, c := range cmds {
			fmt.Fprintf(&b, "\t\t%s\n", zshQuote(c.Name+":"+zshEscape(short(c.Usage))))
		}
		b.WriteString("\t\t'help:show the help of pollfit or of a command'\n\t)\n")
		b.WriteString("\tif (( CURRENT == 2 )); then\n\t\t_describe command commands\n\t\treturn\n\tfi\n")
		b.WriteString("\tlocal cmd=$words[2]\n\tshift words\n\t(( CURRENT-- ))\n\tcase $cmd in\n")
		b.WriteString("\thelp) _describe command commands ;;\n")
		for _, c := range cmds {
			fmt.Fprintf(&b, "\t%s)\n", c.Name)
			if c.Name == "completion" {
				fmt.Fprintf(&b, "\t\t_values shell %s ;;\n", strings.Join(shells, " "))
				continue
			}
			if len(c.VisibleFlags()) == 0 {
				b.WriteString("\t\t;;\n")
				continue
			}
			b.WriteString("\t\t_arguments -s")
			for _, f := range c.VisibleFlags() {
				desc := zshEscape(short(usageOf(f)))
				value := ""
				if tv, ok := f.(cli.DocGenerationFlag); ok && tv.TakesValue() {
					ph := placeholder(f)
					switch {
					case fileFlags[f.Names()[0]]:
						value = ":" + ph + ":_files"
					case flagChoices(c.Name, f.Names()[0]) != nil:
						value = ":" + ph + ":(" + strings.Join(flagChoices(c.Name, f.Names()[0]), " ") + ")"
					default:
						value = ":" + ph + ": "
					}
				}
				repeat := ""
				if _, ok := f.(*cli.StringSliceFlag); ok {
					repeat = "*"
				}
				var opts []string
				for _, n := range f.Names() {
					opts = append(opts, dashes(n))
				}
				excl := ""
				if len(opts) > 1 && repeat == "" {
					excl = "(" + strings.Join(opts, " ") + ")"
				}
				for _, o := range opts {
					fmt.Fprintf(&b, " \\\n\t\t\t%s", zshQuote(excl+repeat+o+"["+desc+"]"+value))
				}
			}
			b.WriteString(" ;;\n")
		}
		b.WriteString("\tesac\n}\nif [ \"$funcstack[1]\" = _pollfit ]; then\n\t_pollfit \"$@\"\nelse\n\tcompdef _pollfit pollfit\nfi\n")
	case "fish":
		b.WriteString("# fish completion for pollfit: pollfit completion fish | source\ncomplete -c pollfit -f\n")
		for _, c := range cmds {
			fmt.Fprintf(&b, "complete -c pollfit -n __fish_use_subcommand -a %s -d %s\n", c.Name, fishQuote(short(c.Usage)))
		}
		b.WriteString("complete -c pollfit -n __fish_use_subcommand -a help -d 'show the help of pollfit or of a command'\n")
		var cmdNames []string
		for _, c := range cmds {
			cmdNames = append(cmdNames, c.Name)
		}
		fmt.Fprintf(&b, "complete -c pollfit -n '__fish_seen_subcommand_from help' -a %s\n", fishQuote(strings.Join(cmdNames, " ")))
		for _, c := range cmds {
			cond := fishQuote("__fish_seen_subcommand_from " + c.Name)
			if c.Name == "completion" {
				fmt.Fprintf(&b, "complete -c pollfit -n %s -a %s\n", cond, fishQuote(strings.Join(shells, " ")))
				continue
			}
			for _, f := range c.VisibleFlags() {
				line := "complete -c pollfit -n " + cond
				for _, n := range f.Names() {
					if len(n) == 1 {
						line += " -s " + n
					} else {
						line += " -l " + n
					}
				}
				if tv, ok := f.(cli.DocGenerationFlag); ok && tv.TakesValue() {
					switch {
					case fileFlags[f.Names()[0]]:
						line += " -r -F"
					case flagChoices(c.Name, f.Names()[0]) != nil:
						line += " -x -a " + fishQuote(strings.Join(flagChoices(c.Name, f.Names()[0]), " "))
					default:
						line += " -x"
					}
				}
				b.WriteString(line + " -d " + fishQuote(short(usageOf(f))) + "\n")
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func dashes(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// usageOf is a flag's usage with its placeholder's back quotes removed.
func usageOf(f cli.Flag) string {
	if df, ok := f.(cli.DocGenerationFlag); ok {
		return strings.ReplaceAll(df.GetUsage(), "`", "")
	}
	return ""
}

// short cuts a usage to its first clause, for completion menus.
func short(s string) string {
	if i := strings.IndexAny(s, ";:("); i > 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > 70 {
		s = string(r[:69]) + "…"
	}
	return s
}

func zshQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
func fishQuote(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}

// zshEscape escapes what _arguments and _describe read in a description.
func zshEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "[", `\[`, "]", `\]`, ":", `\:`).Replace(s)
}

// manPage writes the manual page, section 1, from the app's definition:
// its commands, their usage and their flags by category.
func manPage(a *cli.App) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%% POLLFIT 1\n\n# NAME\n\npollfit - %s\n\n# SYNOPSIS\n\n**pollfit** *command* [*options*]\n\n", a.Usage)
	b.WriteString("# DESCRIPTION\n\n")
	b.WriteString("pollfit reads historical settle times (CSV or Parquet), fits their distribution (Kaplan–Meier for items still pending, " +
		"point masses and spikes kept apart), derives the poll schedule with the least expected lag under a request budget, " +
		"scores schedules on held-out rows and exports them as code or JSON. " +
		"Without **--input**, **plan** and **report** run on the bundled Julia CI job durations.\n\n")
	b.WriteString("# COMMANDS\n\n")
	for _, c := range visibleCommands(a) {
		fmt.Fprintf(&b, "## pollfit %s\n\n%s\n\n", c.Name, manEscape(c.Usage))
		if c.UsageText != "" {
			for _, l := range strings.Split(c.UsageText, "\n") {
				fmt.Fprintf(&b, "    %s\n", strings.TrimSpace(l))
			}
			b.WriteString("\n")
		}
		for _, g := range flagGroups(c) {
			name := strings.ToLower(g.Name)
			fmt.Fprintf(&b, "### %s\n\n", strings.ToUpper(name[:1])+name[1:])
			for _, f := range g.Flags {
				names, usage, _ := strings.Cut(f.String(), "\t")
				fmt.Fprintf(&b, "**%s**\n:   %s\n\n", manEscape(names), manEscape(usage))
			}
		}
	}
	b.WriteString("# EXIT STATUS\n\n0 on success, 1 on bad input or a failed run, 2 on a usage error (a bad or missing flag).\n\n")
	b.WriteString("# SEE ALSO\n\n**pollfit help** *command*; README.md and docs/ in the source tree.\n")
	return string(md2man.Render([]byte(b.String())))
}

// manEscape escapes what Markdown would read as markup.
func manEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "<", `\<`, "[", `\[`, "]", `\]`).Replace(s)
}
