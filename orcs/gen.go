package main

import "github.com/urfave/cli/v2"

func init() { registerCommand(genCommand()) }

func genCommand() *cli.Command {
	return &cli.Command{Name: "gen", Usage: "generate a routed topology (pending)", Hidden: true}
}
