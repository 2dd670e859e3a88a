/**
 * The CLI in Brazilian Portuguese, as the rest of the service speaks: commander's own words (help
 * titles, the usage line, "(padrão: …)", its error messages) set through its public options —
 * `configureHelp` (the `Help` methods it documents as overridable), `helpOption`, `helpCommand`
 * and `configureOutput` — on the program before any subcommand is added, so each inherits them.
 * Command names and flags stay as they are: scripts type them.
 */
import { type Argument, type Command, Help, type Option } from "commander";

/** The help's headings, as commander passes them to `styleTitle`. */
const titles: Record<string, string> = {
  "Usage:": "Uso:",
  "Arguments:": "Argumentos:",
  "Options:": "Opções:",
  "Global Options:": "Opções globais:",
  "Commands:": "Comandos:",
};

/** `[options]` and `[command]` of commander's usage lines. */
const usageWords = (usage: string) => usage.replaceAll("[options]", "[opções]").replaceAll("[command]", "[comando]");

/** "(valores: …, padrão: …, variável: …)" after a description, as commander adds them in English. */
function withExtras(description: string, extras: string[]): string {
  if (extras.length === 0) return description;
  const said = `(${extras.join(", ")})`;
  return description ? `${description} ${said}` : said;
}

const shown = (values: readonly unknown[]) => values.map((v) => JSON.stringify(v)).join(", ");

/** Commander's English error lines, each with its Portuguese; the first that matches is used. */
const errorRules: [RegExp, (...groups: string[]) => string][] = [
  [/^error: unknown option '(.*)'$/, (flag) => `erro: opção desconhecida '${flag}'`],
  [/^error: unknown command '(.*)'$/, (name) => `erro: comando desconhecido '${name}'`],
  [/^\(Did you mean one of (.*)\?\)$/, (names) => `(Você quis dizer um destes: ${names}?)`],
  [/^\(Did you mean (.*)\?\)$/, (name) => `(Você quis dizer ${name}?)`],
  [/^error: missing required argument '(.*)'$/, (name) => `erro: falta o argumento obrigatório '${name}'`],
  [/^error: option '(.*)' argument missing$/, (flag) => `erro: falta o valor da opção '${flag}'`],
  [/^error: required option '(.*)' not specified$/, (flag) => `erro: a opção obrigatória '${flag}' não foi informada`],
  [
    /^error: too many arguments(?: for '(.*)')?\. Expected (\d+) arguments? but got (\d+)\.$/,
    (name, expected, got) =>
      `erro: argumentos demais${name ? ` para '${name}'` : ""}: esperava ${expected}, recebeu ${got}.`,
  ],
  [
    /^error: option '(.*)' argument '(.*)' is invalid\. ?(.*)$/,
    (flag, value, why) => `erro: valor '${value}' inválido para a opção '${flag}'. ${reason(why ?? "")}`.trimEnd(),
  ],
  [
    /^error: option '(.*)' value '(.*)' from env '(.*)' is invalid\. ?(.*)$/,
    (flag, value, env, why) =>
      `erro: valor '${value}' da variável ${env} inválido para a opção '${flag}'. ${reason(why ?? "")}`.trimEnd(),
  ],
  [
    /^error: command-argument value '(.*)' is invalid for argument '(.*)'\. ?(.*)$/,
    (value, name, why) => `erro: valor '${value}' inválido para o argumento '${name}'. ${reason(why ?? "")}`.trimEnd(),
  ],
  [/^error: (.*)$/, (rest) => `erro: ${rest}`],
];

/** Why a value was refused: commander's list of choices, or our parsers' own (Portuguese) words. */
const reason = (why: string) => why.replace(/^Allowed choices are (.*)\.$/, "Valores aceitos: $1.");

/** One of commander's error messages (possibly several lines) in Portuguese. */
function portugueseError(message: string): string {
  return message
    .split("\n")
    .map((line) => {
      for (const [pattern, say] of errorRules) {
        const match = pattern.exec(line);
        if (match) return say(...match.slice(1).map((g) => g ?? ""));
      }
      return line;
    })
    .join("\n");
}

/** Sets the program's (and so every later subcommand's) help and error texts in Portuguese. */
export function inPortuguese(program: Command, help: { helpWidth: number; showGlobalOptions: boolean }): Command {
  return program
    .configureHelp({
      ...help,
      styleTitle: (title: string) => titles[title] ?? title,
      commandUsage: (cmd: Command) => usageWords(Help.prototype.commandUsage.call(new Help(), cmd)),
      subcommandTerm: (cmd: Command) => usageWords(Help.prototype.subcommandTerm.call(new Help(), cmd)),
      optionDescription(option: Option): string {
        const extras: string[] = [];
        if (option.argChoices) extras.push(`valores: ${shown(option.argChoices)}`);
        const showDefault =
          option.required || option.optional || (option.isBoolean() && typeof option.defaultValue === "boolean");
        if (option.defaultValue !== undefined && showDefault) {
          extras.push(`padrão: ${option.defaultValueDescription || JSON.stringify(option.defaultValue)}`);
        }
        if (option.envVar !== undefined) extras.push(`variável: ${option.envVar}`);
        return withExtras(option.description, extras);
      },
      argumentDescription(argument: Argument): string {
        const extras: string[] = [];
        if (argument.argChoices) extras.push(`valores: ${shown(argument.argChoices)}`);
        if (argument.defaultValue !== undefined) {
          extras.push(`padrão: ${argument.defaultValueDescription || JSON.stringify(argument.defaultValue)}`);
        }
        return withExtras(argument.description, extras);
      },
    })
    .helpOption("-h, --help", "mostra a ajuda do comando")
    .helpCommand("help [comando]", "mostra a ajuda do comando")
    .configureOutput({ outputError: (message, write) => write(portugueseError(message)) });
}
