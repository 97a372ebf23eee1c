package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

func init() {
	register(func(e *env) *cobra.Command {
		return &cobra.Command{
			Use: "completion bash|zsh|fish|powershell", Short: "Print a shell completion script",
			Args: cobra.ExactArgs(1), ValidArgs: []string{"bash", "zsh", "fish", "powershell"},
			RunE: func(cmd *cobra.Command, args []string) error {
				root := cmd.Root()
				switch args[0] {
				case "bash":
					return root.GenBashCompletionV2(e.streams.Out, true)
				case "zsh":
					return root.GenZshCompletion(e.streams.Out)
				case "fish":
					return root.GenFishCompletion(e.streams.Out, true)
				case "powershell":
					return root.GenPowerShellCompletionWithDesc(e.streams.Out)
				}
				return fmt.Errorf("unknown shell %q (bash, zsh, fish or powershell)", args[0])
			},
		}
	})
}
