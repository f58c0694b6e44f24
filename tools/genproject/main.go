// Command genproject writes the large benchmark project (SPEC §14):
// genproject [-chapters 2000] [-seed 1] [-idle] [-replay DIR] DIR
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/novelsuite/novel/internal/testsupport/largeproject"
)

func main() {
	var o largeproject.Options
	flag.IntVar(&o.Chapters, "chapters", 2000, "committed chapters")
	flag.IntVar(&o.Volumes, "volumes", 10, "volumes")
	flag.IntVar(&o.Characters, "characters", 300, "active characters")
	flag.IntVar(&o.Foreshadow, "foreshadow", 2000, "foreshadowing items")
	flag.IntVar(&o.StateBytes, "state-bytes", 5<<20, "approximate state file size")
	flag.StringVar(&o.Profile, "profile", "", "generator profile: empty (standard), dense (SPEC §14) or recall (SPEC §25 scale case: use -chapters 249)")
	flag.BoolVar(&o.Idle, "idle", false, "leave no chapter in flight (start of a pipeline run)")
	replay := flag.String("replay", "", "also write replay recordings for the next chapter into this directory")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	o.Seed = *seed
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: genproject [flags] DIR")
		os.Exit(2)
	}
	if err := largeproject.Generate(flag.Arg(0), o); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if *replay != "" {
		if err := largeproject.WriteReplay(*replay, o); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
