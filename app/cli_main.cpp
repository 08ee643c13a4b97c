// ampstudio-cli: everything the GUI does, headless. Parses the command line and dispatches.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli_commands.h"
#include "formats/checkpoint_files.h"

using namespace ampstudio::cli;

void ampstudio::cli::resolveCheckpoint(std::filesystem::path& symbol, std::optional<std::filesystem::path>& params,
                                       bool noParams) {
    if (params) {
        return;
    }
    const ampstudio::CheckpointFiles files = ampstudio::findCheckpointFiles(symbol);
    symbol = files.symbol;
    if (files.params && !noParams) {
        params = files.params;
        std::cerr << "ampstudio-cli: note: using the parameters in " << params->string() << " (--no-params to ignore)\n";
    }
}

int main(int argc, char** argv) {
    CLI::App app{"AMP Studio command line: convert MXNet models to mixed precision", "ampstudio-cli"};
    app.set_version_flag("--version", std::string(AMPSTUDIO_VERSION));
    app.require_subcommand(1);

    ConvertArgs convert;
    CLI::App* convertCmd = app.add_subcommand("convert", "Insert amp_cast/amp_multicast nodes as MXNet's AMP pass does");
    convertCmd->add_option("symbol", convert.symbol, "MXNet symbol file (*-symbol.json), or its *-NNNN.params")->required();
    convertCmd->add_option("--params", convert.params, "MXNet parameter file (default: the newest PREFIX-NNNN.params beside the symbol)");
    convertCmd->add_flag("--no-params", convert.noParams, "Ignore parameter files beside the symbol");
    convertCmd->add_option("--output", convert.outputPrefix, "Writes PREFIX-symbol.json (and PREFIX-0000.params)")
        ->required();
    convertCmd->add_option("--target-dtype", convert.targetDtype, "float16 or bfloat16 (default: the lists', else float16)")
        ->check(CLI::IsMember({"float16", "bfloat16"}));
    convertCmd->add_option("--mode", convert.mode, "typed (MXNet 1.9.1, default) or classic (MXNet <= 1.6)")
        ->check(CLI::IsMember({"typed", "classic"}));
    convertCmd->add_option("--lists", convert.listsFile, "Operator lists JSON (schema of MXNet 1.9.1's defaults)");
    convertCmd->add_option("--target-dtype-ops", convert.targetDtypeOps, "Replace the target-dtype list: A,B");
    convertCmd->add_option("--fp32-ops", convert.fp32Ops, "Replace the FP32 list: A,B");
    convertCmd->add_option("--widest-dtype-ops", convert.widestDtypeOps, "Replace the widest-type list: A,B");
    convertCmd->add_option("--conditional-fp32-ops", convert.conditionalFp32Ops,
                           "Replace the conditional FP32 list: OP:PARAM:V1|V2,...");
    convertCmd->add_option("--excluded-sym-names", convert.excludedSymNames, "Nodes kept out of the lists: N1,N2");
    convertCmd->add_option("--data-names", convert.dataNames, "Graph inputs that are data (default: data)");
    convertCmd->add_flag("--cast-optional-params", convert.castOptionalParams,
                         "Store parameters used only in the target dtype in that dtype");
    convertCmd->add_option("--report", convert.report, "Write the conversion report (JSON)");

    InspectArgs inspect;
    CLI::App* inspectCmd = app.add_subcommand("inspect", "Print a model's nodes, operators, inputs, outputs, parameters");
    inspectCmd->add_option("symbol", inspect.symbol, "MXNet symbol file (*-symbol.json), or its *-NNNN.params")->required();
    inspectCmd->add_option("--params", inspect.params, "MXNet parameter file (default: the newest PREFIX-NNNN.params beside the symbol)");
    inspectCmd->add_flag("--no-params", inspect.noParams, "Ignore parameter files beside the symbol");
    inspectCmd->add_flag("--json", inspect.json, "Machine-readable output");

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
        std::cout << app.help();
        return kSuccess;
    } catch (const CLI::CallForAllHelp&) {
        std::cout << app.help("", CLI::AppFormatMode::All);
        return kSuccess;
    } catch (const CLI::CallForVersion&) {
        std::cout << AMPSTUDIO_VERSION << '\n';
        return kSuccess;
    } catch (const CLI::ParseError& e) {
        std::cerr << "ampstudio-cli: " << e.what() << " (see --help)\n";
        return kUsageError;
    }
    if (convertCmd->parsed()) {
        resolveCheckpoint(convert.symbol, convert.params, convert.noParams);
        return runConvert(convert);
    }
    resolveCheckpoint(inspect.symbol, inspect.params, inspect.noParams);
    return runInspect(inspect);
}
