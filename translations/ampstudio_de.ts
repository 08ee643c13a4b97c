<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE" sourcelanguage="en">
<context>
    <name>ConditionalFp32Model</name>
    <message>
        <source>%1 is not an MXNet 1.9.1 operator: this row never matches a node.</source>
        <translation>%1 ist kein Operator von MXNet 1.9.1: Diese Zeile trifft nie auf einen Knoten zu.</translation>
    </message>
    <message>
        <source>%1 is an alias of %2. Symbol files store canonical names, so this row never matches a node.</source>
        <translation>%1 ist ein Alias von %2. Symboldateien speichern kanonische Namen, daher trifft diese Zeile nie auf einen Knoten zu.</translation>
    </message>
    <message>
        <source>(set a parameter)</source>
        <translation>(Parameter festlegen)</translation>
    </message>
    <message>
        <source>The node attribute to test, e.g. act_type</source>
        <translation>Das zu prüfende Knotenattribut, z.&#xa0;B. act_type</translation>
    </message>
    <message>
        <source>Comma-separated: the node runs in FP32 when the attribute equals one of them</source>
        <translation>Kommagetrennt: Der Knoten läuft in FP32, wenn das Attribut einem dieser Werte entspricht</translation>
    </message>
    <message>
        <source>Op</source>
        <translation>Op</translation>
    </message>
    <message>
        <source>Param</source>
        <translation>Param</translation>
    </message>
    <message>
        <source>Values</source>
        <translation>Werte</translation>
    </message>
    <message>
        <source>A conditional FP32 row needs an op.</source>
        <translation>Eine bedingte FP32-Zeile braucht einen Op.</translation>
    </message>
    <message>
        <source>“%1” is not an MXNet 1.9.1 operator.</source>
        <translation>„%1“ ist kein Operator von MXNet 1.9.1.</translation>
    </message>
    <message>
        <source>%1 is in %2: a node would match two lists. Move it out of %2 first.</source>
        <translation>%1 steht in %2: Ein Knoten würde auf zwei Listen zutreffen. Verschieben Sie ihn zuerst aus %2.</translation>
    </message>
    <message>
        <source>The parameter of %1&apos;s row can&apos;t be empty.</source>
        <translation>Der Parameter in der Zeile von %1 darf nicht leer sein.</translation>
    </message>
    <message>
        <source>Edit %1&apos;s conditional FP32 row</source>
        <translation>Bedingte FP32-Zeile von %1 bearbeiten</translation>
    </message>
</context>
<context>
    <name>ConversionChoicesPanel</name>
    <message>
        <source>The precision target-dtype ops run in. With unedited lists, switching also switches to MXNet&apos;s default lists for that dtype.</source>
        <translation>Die Genauigkeit, in der Ziel-dtype-Ops laufen. Bei unbearbeiteten Listen wechselt ein Umschalten auch zu den Standardlisten von MXNet für diesen dtype.</translation>
    </message>
    <message>
        <source>MXNet 1.9.1: knows dtypes and inserts fewer casts</source>
        <translation>MXNet 1.9.1: kennt dtypes und fügt weniger Casts ein</translation>
    </message>
    <message>
        <source>The original AMP proposal (MXNet 1.6 and earlier)</source>
        <translation>Der ursprüngliche AMP-Vorschlag (MXNet 1.6 und früher)</translation>
    </message>
    <message>
        <source>Conversion algorithm: typed (MXNet 1.9.1) or classic (MXNet ≤ 1.6)</source>
        <translation>Konvertierungsalgorithmus: typisiert (MXNet 1.9.1) oder klassisch (MXNet ≤ 1.6)</translation>
    </message>
    <message>
        <source>Cast optional params</source>
        <translation>Optionale Parameter casten</translation>
    </message>
    <message>
        <source>Typed mode: store parameters that only target-dtype ops read in the target dtype (half the bytes) instead of casting them at run time</source>
        <translation>Typisierter Modus: Parameter, die nur Ziel-dtype-Ops lesen, im Ziel-dtype speichern (halb so viele Bytes), statt sie zur Laufzeit umzuwandeln</translation>
    </message>
    <message>
        <source>Edited lists</source>
        <translation>Bearbeitete Listen</translation>
    </message>
    <message>
        <source>Replace all lists by a preset: MXNet&apos;s defaults or a file you imported</source>
        <translation>Alle Listen durch eine Voreinstellung ersetzen: die Standardlisten von MXNet oder eine importierte Datei</translation>
    </message>
    <message>
        <source>Import…</source>
        <translation>Importieren…</translation>
    </message>
    <message>
        <source>Load the lists from a JSON file (MXNet AMP list schema)</source>
        <translation>Die Listen aus einer JSON-Datei laden (Schema der AMP-Listen von MXNet)</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>Exportieren…</translation>
    </message>
    <message>
        <source>Save the lists as a JSON file (MXNet AMP list schema)</source>
        <translation>Die Listen als JSON-Datei speichern (Schema der AMP-Listen von MXNet)</translation>
    </message>
    <message>
        <source>Target:</source>
        <translation>Ziel:</translation>
    </message>
    <message>
        <source>Mode:</source>
        <translation>Modus:</translation>
    </message>
    <message>
        <source>Preset:</source>
        <translation>Voreinstellung:</translation>
    </message>
    <message>
        <source>MXNet 1.9.1 float16</source>
        <translation>MXNet 1.9.1 float16</translation>
    </message>
    <message>
        <source>MXNet 1.9.1 bfloat16</source>
        <translation>MXNet 1.9.1 bfloat16</translation>
    </message>
    <message>
        <source>ONNX (PyTorch autocast) float16</source>
        <translation>ONNX (PyTorch-Autocast) float16</translation>
    </message>
    <message>
        <source>ONNX (PyTorch autocast) bfloat16</source>
        <translation>ONNX (PyTorch-Autocast) bfloat16</translation>
    </message>
</context>
<context>
    <name>ConversionSettings</name>
    <message>
        <source>BF16 ops</source>
        <translation>BF16-Ops</translation>
    </message>
    <message>
        <source>FP16 ops</source>
        <translation>FP16-Ops</translation>
    </message>
    <message>
        <source>FP32 ops</source>
        <translation>FP32-Ops</translation>
    </message>
    <message>
        <source>widest-type ops</source>
        <translation>Ops mit breitestem Typ</translation>
    </message>
    <message>
        <source>neutral ops</source>
        <translation>neutrale Ops</translation>
    </message>
    <message>
        <source>no list</source>
        <translation>keine Liste</translation>
    </message>
    <message>
        <source>Target %1</source>
        <translation>Ziel %1</translation>
    </message>
    <message>
        <source>Classic mode</source>
        <translation>Klassischer Modus</translation>
    </message>
    <message>
        <source>Typed mode</source>
        <translation>Typisierter Modus</translation>
    </message>
    <message>
        <source>Turn on cast optional params</source>
        <translation>Casten optionaler Parameter einschalten</translation>
    </message>
    <message>
        <source>Turn off cast optional params</source>
        <translation>Casten optionaler Parameter ausschalten</translation>
    </message>
    <message>
        <source>Remove %1 from %2</source>
        <translation>%1 aus %2 entfernen</translation>
    </message>
    <message>
        <source>Add %1 to %2</source>
        <translation>%1 zu %2 hinzufügen</translation>
    </message>
    <message>
        <source>Move %1 to %2</source>
        <translation>%1 nach %2 verschieben</translation>
    </message>
    <message numerus="yes">
        <source>Remove %n ops from %1</source>
        <translation>
            <numerusform>%n Op aus %1 entfernen</numerusform>
            <numerusform>%n Ops aus %1 entfernen</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Remove %n ops</source>
        <translation>
            <numerusform>%n Op entfernen</numerusform>
            <numerusform>%n Ops entfernen</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Move %n ops to %1</source>
        <translation>
            <numerusform>%n Op nach %1 verschieben</numerusform>
            <numerusform>%n Ops nach %1 verschieben</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Add %n ops to %1</source>
        <translation>
            <numerusform>%n Op zu %1 hinzufügen</numerusform>
            <numerusform>%n Ops zu %1 hinzufügen</numerusform>
        </translation>
    </message>
    <message>
        <source>Exclude %1</source>
        <translation>%1 ausschließen</translation>
    </message>
    <message>
        <source>Include %1</source>
        <translation>%1 einbeziehen</translation>
    </message>
    <message>
        <source>Edit excluded nodes</source>
        <translation>Ausgeschlossene Knoten bearbeiten</translation>
    </message>
    <message numerus="yes">
        <source>Exclude %n nodes</source>
        <translation>
            <numerusform>%n Knoten ausschließen</numerusform>
            <numerusform>%n Knoten ausschließen</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Include %n nodes</source>
        <translation>
            <numerusform>%n Knoten einbeziehen</numerusform>
            <numerusform>%n Knoten einbeziehen</numerusform>
        </translation>
    </message>
    <message>
        <source>Edit conditional FP32 ops</source>
        <translation>Bedingte FP32-Ops bearbeiten</translation>
    </message>
    <message>
        <source>Add %1 to conditional FP32 ops</source>
        <translation>%1 zu den bedingten FP32-Ops hinzufügen</translation>
    </message>
</context>
<context>
    <name>ConversionWorkspace</name>
    <message>
        <source>MLP (three layers)</source>
        <translation>MLP (drei Schichten)</translation>
    </message>
    <message>
        <source>Small CNN (LeNet, Fashion-MNIST)</source>
        <translation>Kleines CNN (LeNet, Fashion-MNIST)</translation>
    </message>
    <message>
        <source>Proposal example 1 (cos, sin, exp, sqrt)</source>
        <translation>Beispiel 1 aus dem AMP-Vorschlag (cos, sin, exp, sqrt)</translation>
    </message>
    <message>
        <source>Proposal example 2 (add_n)</source>
        <translation>Beispiel 2 aus dem AMP-Vorschlag (add_n)</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>No model is open.</source>
        <translation>Es ist kein Modell geöffnet.</translation>
    </message>
</context>
<context>
    <name>ErrorScaleLegend</name>
    <message>
        <source>Max relative error of each node&apos;s output against float32 (max |c − r| / max |r|), on a log scale; grey: not measured (variables, casts, nodes only one graph has)</source>
        <translation>Maximaler relativer Fehler der Ausgabe jedes Knotens gegenüber float32 (max |c − r| / max |r|), logarithmisch skaliert; grau: nicht gemessen (Variablen, Casts, Knoten, die nur ein Graph enthält)</translation>
    </message>
    <message>
        <source>Error:</source>
        <translation>Fehler:</translation>
    </message>
    <message>
        <source>not measured</source>
        <translation>nicht gemessen</translation>
    </message>
    <message>
        <source>range warning</source>
        <translation>Bereichswarnung</translation>
    </message>
</context>
<context>
    <name>GraphDrawing</name>
    <message>
        <source>parameter</source>
        <translation>Parameter</translation>
    </message>
    <message>
        <source>auxiliary state</source>
        <translation>Hilfszustand</translation>
    </message>
    <message>
        <source>input</source>
        <translation>Eingabe</translation>
    </message>
</context>
<context>
    <name>GraphLegend</name>
    <message>
        <source>Cast</source>
        <translation>Cast</translation>
    </message>
    <message>
        <source>An inserted Cast node; the badge names the dtype it casts to</source>
        <translation>Ein eingefügter Cast-Knoten; das Badge nennt den dtype, in den er umwandelt</translation>
    </message>
    <message>
        <source>Excluded</source>
        <translation>Ausgeschlossen</translation>
    </message>
    <message>
        <source>A graph input: data, a parameter or an auxiliary state</source>
        <translation>Ein Eingang des Graphen: Daten, ein Parameter oder ein Hilfszustand</translation>
    </message>
    <message>
        <source>Runs in the target dtype (float16 or bfloat16)</source>
        <translation>Läuft im Ziel-dtype (float16 oder bfloat16)</translation>
    </message>
    <message>
        <source>Runs in float32 (FP32 list, conditional FP32 or excluded)</source>
        <translation>Läuft in float32 (FP32-Liste, bedingt FP32 oder ausgeschlossen)</translation>
    </message>
    <message>
        <source>Runs in the widest dtype of its inputs</source>
        <translation>Läuft im breitesten dtype seiner Eingänge</translation>
    </message>
    <message>
        <source>No rule applies: dtypes pass through</source>
        <translation>Keine Regel greift: dtypes werden durchgereicht</translation>
    </message>
    <message>
        <source>An inserted amp_cast; the badge names the dtype it casts to</source>
        <translation>Ein eingefügter amp_cast; das Badge nennt den dtype, in den er umwandelt</translation>
    </message>
    <message>
        <source>An inserted amp_multicast: casts its inputs to a common dtype</source>
        <translation>Ein eingefügter amp_multicast: Wandelt seine Eingänge in einen gemeinsamen dtype um</translation>
    </message>
    <message>
        <source>Excluded from conversion by name (dashed outline)</source>
        <translation>Per Name von der Konvertierung ausgeschlossen (gestrichelter Umriss)</translation>
    </message>
</context>
<context>
    <name>GraphView</name>
    <message>
        <source>Variable</source>
        <translation>Variable</translation>
    </message>
    <message>
        <source>Target dtype</source>
        <translation>Ziel-dtype</translation>
    </message>
    <message>
        <source>FP32</source>
        <translation>FP32</translation>
    </message>
    <message>
        <source>Widest</source>
        <translation>Breitester Typ</translation>
    </message>
    <message>
        <source>Unchanged</source>
        <translation>Unverändert</translation>
    </message>
    <message>
        <source>amp_cast</source>
        <translation>amp_cast</translation>
    </message>
    <message>
        <source>amp_multicast</source>
        <translation>amp_multicast</translation>
    </message>
    <message>
        <source>variable</source>
        <translation>Variable</translation>
    </message>
    <message>
        <source>op: %1</source>
        <translation>Op: %1</translation>
    </message>
    <message>
        <source>precision: %1</source>
        <translation>Genauigkeit: %1</translation>
    </message>
    <message>
        <source>casts to: %1</source>
        <translation>wandelt um in: %1</translation>
    </message>
    <message>
        <source>excluded from conversion by name</source>
        <translation>per Name von der Konvertierung ausgeschlossen</translation>
    </message>
    <message>
        <source>There is no graph to export.</source>
        <translation>Es gibt keinen Graphen zum Exportieren.</translation>
    </message>
    <message>
        <source>Not enough memory for a %1 × %2 image.</source>
        <translation>Nicht genug Speicher für ein Bild mit %1 × %2 Pixeln.</translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>%1 kann nicht geschrieben werden: %2</translation>
    </message>
    <message>
        <source>AMP Studio graph</source>
        <translation>AMP-Studio-Graph</translation>
    </message>
    <message>
        <source>Cannot write %1: the SVG generator did not start.</source>
        <translation>%1 kann nicht geschrieben werden: Der SVG-Generator ließ sich nicht starten.</translation>
    </message>
    <message>
        <source>Nodes: %1, edges: %2</source>
        <translation>Knoten: %1, Kanten: %2</translation>
    </message>
    <message numerus="yes">
        <source>name scope of %n node(s), collapsed: double-click opens it</source>
        <translation>
            <numerusform>Namensbereich mit %n Knoten, zugeklappt: Doppelklick öffnet ihn</numerusform>
            <numerusform>Namensbereich mit %n Knoten, zugeklappt: Doppelklick öffnet ihn</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>GroupedDrawing</name>
    <message numerus="yes">
        <source>%n node(s)</source>
        <translation>
            <numerusform>%n Knoten</numerusform>
            <numerusform>%n Knoten</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n cast(s)</source>
        <translation>
            <numerusform>%n Cast</numerusform>
            <numerusform>%n Casts</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>MagnitudeHistogramView</name>
    <message>
        <source>Magnitudes of the node&apos;s float32 output (log scale, two octaves a bar; %1 zeros). Shaded: where %2 flushes to zero (below 2^%3), keeps fewer digits (below 2^%4) or overflows (above 2^%5).</source>
        <translation>Beträge der float32-Ausgabe des Knotens (logarithmische Skala, zwei Oktaven pro Balken; %1 Nullen). Schattiert: wo %2 auf null abrundet (unter 2^%3), weniger Stellen behält (unter 2^%4) oder überläuft (über 2^%5).</translation>
    </message>
    <message>
        <source>not measured</source>
        <translation>nicht gemessen</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>%1 → %2 nodes · %3 Cast · %4% of compute in %5</source>
        <translation>%1 → %2 Knoten · %3 Cast · %4&#xa0;% der Rechenlast in %5</translation>
    </message>
    <message>
        <source>cannot save: fails %1: %2</source>
        <translation>Speichern nicht möglich: %1 fehlgeschlagen: %2</translation>
    </message>
    <message>
        <source>AMP Studio</source>
        <translation>AMP Studio</translation>
    </message>
    <message>
        <source>Operator Lists</source>
        <translation>Operatorlisten</translation>
    </message>
    <message>
        <source>Node Inspector</source>
        <translation>Knoteninspektor</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Datei</translation>
    </message>
    <message>
        <source>&amp;Open…</source>
        <translation>Ö&amp;ffnen…</translation>
    </message>
    <message>
        <source>Open an MXNet model (*-symbol.json, with its *-NNNN.params when present)</source>
        <translation>Ein MXNet-Modell öffnen (*-symbol.json, samt zugehöriger *-NNNN.params, falls vorhanden)</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>&amp;Zuletzt geöffnet</translation>
    </message>
    <message>
        <source>&amp;Examples</source>
        <translation>B&amp;eispiele</translation>
    </message>
    <message>
        <source>Open the bundled example “%1”</source>
        <translation>Das mitgelieferte Beispiel „%1“ öffnen</translation>
    </message>
    <message>
        <source>&amp;Save Converted…</source>
        <translation>Konvertiertes Modell &amp;speichern…</translation>
    </message>
    <message>
        <source>Write the converted model (symbol and parameters) under a new name</source>
        <translation>Das konvertierte Modell (Symbol und Parameter) unter einem neuen Namen speichern</translation>
    </message>
    <message>
        <source>Export &amp;Report…</source>
        <translation>Be&amp;richt exportieren…</translation>
    </message>
    <message>
        <source>Write the conversion report (every decision and cast) as JSON</source>
        <translation>Den Konvertierungsbericht (jede Entscheidung und jeden Cast) als JSON speichern</translation>
    </message>
    <message>
        <source>Export &amp;Original View…</source>
        <translation>&amp;Originalansicht exportieren…</translation>
    </message>
    <message>
        <source>Save the original graph as a PNG or SVG image</source>
        <translation>Den Originalgraphen als PNG- oder SVG-Bild speichern</translation>
    </message>
    <message>
        <source>Export &amp;Converted View…</source>
        <translation>&amp;Konvertierte Ansicht exportieren…</translation>
    </message>
    <message>
        <source>Save the converted graph as a PNG or SVG image</source>
        <translation>Den konvertierten Graphen als PNG- oder SVG-Bild speichern</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Beenden</translation>
    </message>
    <message>
        <source>Quit AMP Studio</source>
        <translation>AMP Studio beenden</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>&amp;Bearbeiten</translation>
    </message>
    <message>
        <source>&amp;Undo</source>
        <translation>&amp;Rückgängig</translation>
    </message>
    <message>
        <source>&amp;Redo</source>
        <translation>Wieder&amp;herstellen</translation>
    </message>
    <message>
        <source>&amp;Find Node…</source>
        <translation>Knoten &amp;suchen…</translation>
    </message>
    <message>
        <source>Search nodes by name or operator</source>
        <translation>Knoten nach Name oder Operator suchen</translation>
    </message>
    <message>
        <source>Find &amp;Next</source>
        <translation>&amp;Weitersuchen</translation>
    </message>
    <message>
        <source>Find &amp;Previous</source>
        <translation>&amp;Frühere suchen</translation>
    </message>
    <message>
        <source>Pr&amp;eferences…</source>
        <translation>&amp;Einstellungen…</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>&amp;Ansicht</translation>
    </message>
    <message>
        <source>&amp;Fit to View</source>
        <translation>&amp;An Fenster anpassen</translation>
    </message>
    <message>
        <source>Zoom so that the whole graph is visible</source>
        <translation>So zoomen, dass der ganze Graph sichtbar ist</translation>
    </message>
    <message>
        <source>Zoom &amp;In</source>
        <translation>Ver&amp;größern</translation>
    </message>
    <message>
        <source>Zoom &amp;Out</source>
        <translation>Ver&amp;kleinern</translation>
    </message>
    <message>
        <source>&amp;Actual Size</source>
        <translation>&amp;Originalgröße</translation>
    </message>
    <message>
        <source>&amp;Both Graphs</source>
        <translation>&amp;Beide Graphen</translation>
    </message>
    <message>
        <source>Original &amp;Only</source>
        <translation>Nur O&amp;riginal</translation>
    </message>
    <message>
        <source>Give the whole width to the original graph</source>
        <translation>Dem Originalgraphen die ganze Breite geben</translation>
    </message>
    <message>
        <source>&amp;Converted Only</source>
        <translation>Nur Kon&amp;vertiert</translation>
    </message>
    <message>
        <source>Give the whole width to the converted graph</source>
        <translation>Dem konvertierten Graphen die ganze Breite geben</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>&amp;Hilfe</translation>
    </message>
    <message>
        <source>&amp;About AMP Studio</source>
        <translation>Ü&amp;ber AMP Studio</translation>
    </message>
    <message>
        <source>Main</source>
        <translation>Hauptwerkzeugleiste</translation>
    </message>
    <message>
        <source>Find node by name or op</source>
        <translation>Knoten nach Name oder Op suchen</translation>
    </message>
    <message>
        <source>Search both graphs; Enter jumps to the next match</source>
        <translation>Beide Graphen durchsuchen; die Eingabetaste springt zum nächsten Treffer</translation>
    </message>
    <message numerus="yes">
        <source>%n match(es) in the converted graph</source>
        <translation>
            <numerusform>%n Treffer im konvertierten Graphen</numerusform>
            <numerusform>%n Treffer im konvertierten Graphen</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>, %n in the original</source>
        <translation>
            <numerusform>, %n im Original</numerusform>
            <numerusform>, %n im Original</numerusform>
        </translation>
    </message>
    <message>
        <source>Open Model</source>
        <translation>Modell öffnen</translation>
    </message>
    <message>
        <source>Cannot open model</source>
        <translation>Modell kann nicht geöffnet werden</translation>
    </message>
    <message>
        <source>%1 — AMP Studio</source>
        <translation>%1 — AMP Studio</translation>
    </message>
    <message>
        <source>bundled parameters</source>
        <translation>mit Parametern</translation>
    </message>
    <message>
        <source>its initializers as parameters</source>
        <translation>seine Initialisierer als Parameter</translation>
    </message>
    <message>
        <source>no parameters</source>
        <translation>ohne Parameter</translation>
    </message>
    <message>
        <source>Opened %1 (%2)</source>
        <translation>%1 geöffnet (%2)</translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;Original&lt;/b&gt; — %n node(s)</source>
        <translation>
            <numerusform>&lt;b&gt;Original&lt;/b&gt; — %n Knoten</numerusform>
            <numerusform>&lt;b&gt;Original&lt;/b&gt; — %n Knoten</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;Converted&lt;/b&gt; to %1, %2 mode — %n node(s)</source>
        <translation>
            <numerusform>&lt;b&gt;Konvertiert&lt;/b&gt; nach %1, Modus %2 — %n Knoten</numerusform>
            <numerusform>&lt;b&gt;Konvertiert&lt;/b&gt; nach %1, Modus %2 — %n Knoten</numerusform>
        </translation>
    </message>
    <message>
        <source>&lt;b&gt;Converted&lt;/b&gt; — &lt;span style=&apos;color:#c0392b&apos;&gt;cannot convert: %1&lt;/span&gt;</source>
        <translation>&lt;b&gt;Konvertiert&lt;/b&gt; — &lt;span style=&apos;color:#c0392b&apos;&gt;Konvertierung nicht möglich: %1&lt;/span&gt;</translation>
    </message>
    <message>
        <source>%1 → %2 nodes · %3 amp_cast · %4 amp_multicast · %5% of compute in %6</source>
        <translation>%1 → %2 Knoten · %3 amp_cast · %4 amp_multicast · %5&#xa0;% der Rechenlast in %6</translation>
    </message>
    <message>
        <source> · parameters %1 → %2</source>
        <translation> · Parameter %1 → %2</translation>
    </message>
    <message>
        <source>Converting…</source>
        <translation>Wird konvertiert…</translation>
    </message>
    <message>
        <source>Save Converted Model</source>
        <translation>Konvertiertes Modell speichern</translation>
    </message>
    <message>
        <source>MXNet symbol (*-symbol.json)</source>
        <translation>MXNet-Symbol (*-symbol.json)</translation>
    </message>
    <message>
        <source>Cannot save</source>
        <translation>Speichern nicht möglich</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>%1 gespeichert</translation>
    </message>
    <message>
        <source> and </source>
        <translation> und </translation>
    </message>
    <message>
        <source>Export Conversion Report</source>
        <translation>Konvertierungsbericht exportieren</translation>
    </message>
    <message>
        <source>JSON (*.json)</source>
        <translation>JSON (*.json)</translation>
    </message>
    <message>
        <source>Cannot export the report</source>
        <translation>Der Bericht kann nicht exportiert werden</translation>
    </message>
    <message>
        <source>Export Graph Image</source>
        <translation>Graphenbild exportieren</translation>
    </message>
    <message>
        <source>PNG image (*.png);;SVG drawing (*.svg)</source>
        <translation>PNG-Bild (*.png);;SVG-Zeichnung (*.svg)</translation>
    </message>
    <message>
        <source>Cannot export the image</source>
        <translation>Das Bild kann nicht exportiert werden</translation>
    </message>
    <message>
        <source>No node matches “%1”</source>
        <translation>Kein Knoten passt zu „%1“</translation>
    </message>
    <message>
        <source>About AMP Studio</source>
        <translation>Über AMP Studio</translation>
    </message>
    <message>
        <source>&lt;h3&gt;AMP Studio %1&lt;/h3&gt;&lt;p&gt;Converts FP32 MXNet models to mixed precision (float16, bfloat16) as MXNet&apos;s AMP does, shows every decision, and trains with dynamic loss scaling.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;AMP Studio %1&lt;/h3&gt;&lt;p&gt;Konvertiert FP32-Modelle von MXNet wie MXNets AMP in Mixed Precision (float16, bfloat16), zeigt jede Entscheidung und trainiert mit dynamischer Loss-Skalierung.&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&amp;Clear Menu</source>
        <translation>Menü &amp;leeren</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>Training</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>Genauigkeit</translation>
    </message>
    <message>
        <source>Cannot save: %1</source>
        <translation>Speichern nicht möglich: %1</translation>
    </message>
    <message>
        <source>cannot save: fails MXNet&apos;s dtype check: %1</source>
        <translation>Speichern nicht möglich: dtype-Prüfung von MXNet fehlgeschlagen: %1</translation>
    </message>
    <message numerus="yes">
        <source> · valid where MXNet 1.9.1&apos;s own result is not: %n input(s) wired differently</source>
        <translation>
            <numerusform> · gültig, wo das Ergebnis von MXNet 1.9.1 selbst es nicht ist: %n Eingang anders verbunden</numerusform>
            <numerusform> · gültig, wo das Ergebnis von MXNet 1.9.1 selbst es nicht ist: %n Eingänge anders verbunden</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>, %n parameter(s) stored in another dtype (see the report)</source>
        <translation>
            <numerusform>, %n Parameter in einem anderen dtype gespeichert (siehe Bericht)</numerusform>
            <numerusform>, %n Parameter in einem anderen dtype gespeichert (siehe Bericht)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Keep %n Node(s) in Float32</source>
        <translation>
            <numerusform>%n Knoten in Float32 belassen</numerusform>
            <numerusform>%n Knoten in Float32 belassen</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n node(s) kept in float32 (the precision search&apos;s set); Undo takes them back</source>
        <translation>
            <numerusform>%n Knoten in float32 belassen (die Menge aus der Genauigkeitssuche); mit „Rückgängig“ lässt sich das zurücknehmen</numerusform>
            <numerusform>%n Knoten in float32 belassen (die Menge aus der Genauigkeitssuche); mit „Rückgängig“ lässt sich das zurücknehmen</numerusform>
        </translation>
    </message>
    <message>
        <source>Models (*-symbol.json *.json *.params *.onnx);;MXNet models (*-symbol.json *.json *.params);;ONNX models (*.onnx);;All files (*)</source>
        <translation>Modelle (*-symbol.json *.json *.params *.onnx);;MXNet-Modelle (*-symbol.json *.json *.params);;ONNX-Modelle (*.onnx);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>Stop converting and laying out; the views keep the last finished graphs</source>
        <translation>Konvertieren und Layout anhalten; die Ansichten behalten die zuletzt fertigen Graphen</translation>
    </message>
    <message>
        <source>Cancelled: the views show the last finished graphs; an edit lays them out again</source>
        <translation>Abgebrochen: Die Ansichten zeigen die zuletzt fertigen Graphen; eine Änderung ordnet sie neu an</translation>
    </message>
    <message>
        <source>Laying out the converted graph…</source>
        <translation>Layout des konvertierten Graphen…</translation>
    </message>
    <message>
        <source>Laying out the original graph…</source>
        <translation>Layout des Originalgraphen…</translation>
    </message>
    <message>
        <source>Drawing…</source>
        <translation>Zeichnen…</translation>
    </message>
    <message>
        <source>&lt;b&gt;Converted&lt;/b&gt; — converting and laying out…</source>
        <translation>&lt;b&gt;Konvertiert&lt;/b&gt; — wird konvertiert und angeordnet…</translation>
    </message>
    <message>
        <source>&amp;Group by Name Scope</source>
        <translation>Nach Namensbereich &amp;gruppieren</translation>
    </message>
    <message>
        <source>One box per name scope (double-click opens one); on at first for large models</source>
        <translation>Ein Kasten je Namensbereich (Doppelklick öffnet ihn); bei großen Modellen anfangs an</translation>
    </message>
    <message numerus="yes">
        <source>%n variable(s)</source>
        <translation>
            <numerusform>%n Variable</numerusform>
            <numerusform>%n Variablen</numerusform>
        </translation>
    </message>
    <message>
        <source>mostly %1</source>
        <translation>überwiegend %1</translation>
    </message>
    <message numerus="yes">
        <source>group of %n node(s)</source>
        <translation>
            <numerusform>Gruppe aus %n Knoten</numerusform>
            <numerusform>Gruppe aus %n Knoten</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Exclude %n Node(s)</source>
        <translation>
            <numerusform>%n Knoten ausschließen</numerusform>
            <numerusform>%n Knoten ausschließen</numerusform>
        </translation>
    </message>
    <message>
        <source>Open Group</source>
        <translation>Gruppe öffnen</translation>
    </message>
    <message numerus="yes">
        <source>Exclude Its %n Node(s)</source>
        <translation>
            <numerusform>Seinen %n Knoten ausschließen</numerusform>
            <numerusform>Seine %n Knoten ausschließen</numerusform>
        </translation>
    </message>
    <message>
        <source>Collapse Scope</source>
        <translation>Bereich zuklappen</translation>
    </message>
    <message>
        <source>%1 %2 %</source>
        <translation>%1 %2 %</translation>
    </message>
</context>
<context>
    <name>NodeContextMenu</name>
    <message>
        <source>&amp;Include “%1” in the conversion</source>
        <translation>„%1“ in die Konvertierung &amp;einbeziehen</translation>
    </message>
    <message>
        <source>&amp;Exclude “%1” (keep it in FP32)</source>
        <translation>„%1“ &amp;ausschließen (in FP32 belassen)</translation>
    </message>
    <message>
        <source>&amp;Move “%1” to</source>
        <translation>„%1“ &amp;verschieben nach</translation>
    </message>
    <message>
        <source>&amp;Target-dtype ops</source>
        <translation>&amp;Ziel-dtype-Ops</translation>
    </message>
    <message>
        <source>&amp;FP32 ops</source>
        <translation>&amp;FP32-Ops</translation>
    </message>
    <message>
        <source>&amp;Widest-type ops</source>
        <translation>Ops mit &amp;breitestem Typ</translation>
    </message>
    <message>
        <source>&amp;Neutral ops</source>
        <translation>&amp;Neutrale Ops</translation>
    </message>
    <message>
        <source>No &amp;list</source>
        <translation>&amp;Keine Liste</translation>
    </message>
    <message>
        <source>&amp;Copy Name</source>
        <translation>Namen &amp;kopieren</translation>
    </message>
</context>
<context>
    <name>NodeErrorBox</name>
    <message>
        <source>undefined (no finite pair)</source>
        <translation>undefiniert (kein endliches Paar)</translation>
    </message>
    <message>
        <source>Measured error</source>
        <translation>Gemessener Fehler</translation>
    </message>
    <message>
        <source>In the model:</source>
        <translation>Im Modell:</translation>
    </message>
    <message>
        <source>Own:</source>
        <translation>Eigener Fehler:</translation>
    </message>
    <message>
        <source>Cosine:</source>
        <translation>Kosinus:</translation>
    </message>
    <message>
        <source>Float32 range:</source>
        <translation>Float32-Bereich:</translation>
    </message>
    <message>
        <source>max relative %1, max absolute %2</source>
        <translation>max. relativ %1, max. absolut %2</translation>
    </message>
    <message numerus="yes">
        <source>; %n inf/NaN</source>
        <translation>
            <numerusform>; %n inf/NaN</numerusform>
            <numerusform>; %n inf/NaN</numerusform>
        </translation>
    </message>
    <message>
        <source>none: computes in float32, its error is inherited</source>
        <translation>keiner: rechnet in float32, sein Fehler ist geerbt</translation>
    </message>
    <message>
        <source>%1 (alone in %2 on exact float32 inputs)</source>
        <translation>%1 (allein in %2 mit exakten float32-Eingängen)</translation>
    </message>
    <message>
        <source>not measured: the node cannot run on its own</source>
        <translation>nicht gemessen: Der Knoten kann nicht allein ausgeführt werden</translation>
    </message>
    <message>
        <source>undefined</source>
        <translation>undefiniert</translation>
    </message>
    <message>
        <source>max |x| %1</source>
        <translation>max |x| %1</translation>
    </message>
    <message>
        <source>, %1 % beyond %2&apos;s largest</source>
        <translation>, %1&#xa0;% über dem größten Wert von %2</translation>
    </message>
    <message>
        <source>, %1 % below its smallest normal</source>
        <translation>, %1&#xa0;% unter dem kleinsten normalen Wert</translation>
    </message>
    <message numerus="yes">
        <source>, %n inf/NaN in float32</source>
        <translation>
            <numerusform>, %n inf/NaN in float32</numerusform>
            <numerusform>, %n inf/NaN in float32</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>NodeInspector</name>
    <message>
        <source>%1: %2 (%3)</source>
        <translation>%1: %2 (%3)</translation>
    </message>
    <message numerus="yes">
        <source>… and %n more (see the report)</source>
        <translation>
            <numerusform>… und %n weiterer (siehe Bericht)</numerusform>
            <numerusform>… und %n weitere (siehe Bericht)</numerusform>
        </translation>
    </message>
    <message>
        <source>Inside its bodies:</source>
        <translation>In seinen Rümpfen:</translation>
    </message>
    <message numerus="yes">
        <source>%n more</source>
        <translation>
            <numerusform>%n weiterer</numerusform>
            <numerusform>%n weitere</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 (output %2)</source>
        <translation>%1 (Ausgang %2)</translation>
    </message>
    <message>
        <source>widest</source>
        <translation>breitester Typ</translation>
    </message>
    <message>
        <source>parameter</source>
        <translation>Parameter</translation>
    </message>
    <message>
        <source>auxiliary state</source>
        <translation>Hilfszustand</translation>
    </message>
    <message>
        <source>data input</source>
        <translation>Dateneingang</translation>
    </message>
    <message>
        <source>as given (not known before run time)</source>
        <translation>wie übergeben (vor der Laufzeit unbekannt)</translation>
    </message>
    <message>
        <source>stored in %1</source>
        <translation>gespeichert in %1</translation>
    </message>
    <message>
        <source>widest of its inputs, at run time</source>
        <translation>breitester Typ seiner Eingänge, zur Laufzeit</translation>
    </message>
    <message>
        <source>unchanged: whatever it receives</source>
        <translation>unverändert: was immer er erhält</translation>
    </message>
    <message>
        <source>unchanged: receives %1</source>
        <translation>unverändert: erhält %1</translation>
    </message>
    <message>
        <source>no list</source>
        <translation>keine Liste</translation>
    </message>
    <message>
        <source>A %1, read only by target-dtype operators: stored in %2 (cast_optional_params).</source>
        <translation>Ein %1, den nur Operatoren im Ziel-dtype lesen: in %2 gespeichert (cast_optional_params).</translation>
    </message>
    <message>
        <source>A %1 of the graph: no rule applies to variables.</source>
        <translation>Ein %1 des Graphen: Für Variablen gilt keine Regel.</translation>
    </message>
    <message>
        <source>%1 is in target_dtype_ops: it runs in %2.</source>
        <translation>%1 steht in target_dtype_ops: Der Knoten läuft in %2.</translation>
    </message>
    <message>
        <source>%1 is in fp32_ops: it runs in float32.</source>
        <translation>%1 steht in fp32_ops: Der Knoten läuft in float32.</translation>
    </message>
    <message>
        <source>%1 is in widest_dtype_ops: %2.</source>
        <translation>%1 steht in widest_dtype_ops: %2.</translation>
    </message>
    <message>
        <source>%1 is in conditional_fp32_ops and has %2: it runs in float32.</source>
        <translation>%1 steht in conditional_fp32_ops und hat %2: Der Knoten läuft in float32.</translation>
    </message>
    <message>
        <source>Excluded by name: its readers take it as float32 (with cast_optional_params, MXNet may still store it in the target dtype when a target-dtype op reads it).</source>
        <translation>Per Name ausgeschlossen: Seine Leser nehmen ihn als float32 (mit cast_optional_params kann MXNet ihn dennoch im Ziel-dtype speichern, wenn eine Ziel-dtype-Operation ihn liest).</translation>
    </message>
    <message>
        <source>Excluded by name: runs in float32.</source>
        <translation>Per Name ausgeschlossen: Der Knoten läuft in float32.</translation>
    </message>
    <message>
        <source>Excluded by name: its inputs pass through unchanged.</source>
        <translation>Per Name ausgeschlossen: Seine Eingänge werden unverändert durchgereicht.</translation>
    </message>
    <message>
        <source>%1 is in neutral_ops: it runs in the dtype of its inputs.</source>
        <translation>%1 steht in neutral_ops: Der Knoten läuft im dtype seiner Eingänge.</translation>
    </message>
    <message>
        <source>%1 is in no list: its inputs pass through unchanged.</source>
        <translation>%1 steht in keiner Liste: Seine Eingänge werden unverändert durchgereicht.</translation>
    </message>
    <message>
        <source>Not reachable from the graph outputs: the conversion drops it.</source>
        <translation>Von den Ausgängen des Graphen aus nicht erreichbar: Die Konvertierung entfernt den Knoten.</translation>
    </message>
    <message>
        <source>Inserted by the conversion: brings %1 to the widest of their dtypes at run time, for %2.</source>
        <translation>Von der Konvertierung eingefügt: Bringt %1 zur Laufzeit auf den breitesten ihrer dtypes, für %2.</translation>
    </message>
    <message>
        <source>Inserted by the conversion: casts %1 to %2 for the graph output.</source>
        <translation>Von der Konvertierung eingefügt: Wandelt %1 für den Ausgang des Graphen in %2 um.</translation>
    </message>
    <message>
        <source>Inserted by the conversion: casts %1 to %2 for %3.</source>
        <translation>Von der Konvertierung eingefügt: Wandelt %1 für %3 in %2 um.</translation>
    </message>
    <message>
        <source>It is also a graph output.</source>
        <translation>Er ist auch ein Ausgang des Graphen.</translation>
    </message>
    <message>
        <source>%1 (cast)</source>
        <translation>%1 (per Cast)</translation>
    </message>
    <message>
        <source>Not known before run time</source>
        <translation>Vor der Laufzeit unbekannt</translation>
    </message>
    <message>
        <source>Cast to %1 by %2 in the converted graph</source>
        <translation>Im konvertierten Graphen von %2 in %1 umgewandelt</translation>
    </message>
    <message>
        <source>Select a node in a graph view to inspect it.</source>
        <translation>Wählen Sie einen Knoten in einer Graphansicht aus, um ihn zu untersuchen.</translation>
    </message>
    <message>
        <source>Operator:</source>
        <translation>Operator:</translation>
    </message>
    <message>
        <source>Precision:</source>
        <translation>Genauigkeit:</translation>
    </message>
    <message>
        <source>Rule:</source>
        <translation>Regel:</translation>
    </message>
    <message>
        <source>Reason:</source>
        <translation>Begründung:</translation>
    </message>
    <message>
        <source>None</source>
        <translation>Keine</translation>
    </message>
    <message>
        <source>Key</source>
        <translation>Schlüssel</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>Wert</translation>
    </message>
    <message>
        <source>Input</source>
        <translation>Eingang</translation>
    </message>
    <message>
        <source>From</source>
        <translation>Von</translation>
    </message>
    <message>
        <source>Output</source>
        <translation>Ausgang</translation>
    </message>
    <message>
        <source>Dtype</source>
        <translation>Dtype</translation>
    </message>
    <message>
        <source>Read by</source>
        <translation>Gelesen von</translation>
    </message>
    <message>
        <source>variable (%1)</source>
        <translation>Variable (%1)</translation>
    </message>
    <message>
        <source>inserted by the conversion</source>
        <translation>von der Konvertierung eingefügt</translation>
    </message>
    <message>
        <source>not converted</source>
        <translation>nicht konvertiert</translation>
    </message>
    <message>
        <source>The conversion report does not mention this node.</source>
        <translation>Der Konvertierungsbericht erwähnt diesen Knoten nicht.</translation>
    </message>
    <message>
        <source>No conversion has run on this graph.</source>
        <translation>Auf diesem Graphen wurde noch keine Konvertierung ausgeführt.</translation>
    </message>
    <message>
        <source>Attributes (%1)</source>
        <translation>Attribute (%1)</translation>
    </message>
    <message>
        <source>Input %1 of %2</source>
        <translation>Eingang %1 von %2</translation>
    </message>
    <message>
        <source>%1 (output %2: %3)
Double-click to show it</source>
        <translation>%1 (Ausgang %2: %3)
Doppelklicken, um ihn anzuzeigen</translation>
    </message>
    <message>
        <source>Inputs (%1)</source>
        <translation>Eingänge (%1)</translation>
    </message>
    <message>
        <source>%1 (%2)
Double-click to show it</source>
        <translation>%1 (%2)
Doppelklicken, um ihn anzuzeigen</translation>
    </message>
    <message>
        <source>graph output</source>
        <translation>Ausgang des Graphen</translation>
    </message>
    <message>
        <source>An output of the graph</source>
        <translation>Ein Ausgang des Graphen</translation>
    </message>
    <message>
        <source>Outputs (%1)</source>
        <translation>Ausgänge (%1)</translation>
    </message>
    <message>
        <source>a name scope, collapsed (double-click opens it)</source>
        <translation>ein zugeklappter Namensbereich (Doppelklick öffnet ihn)</translation>
    </message>
</context>
<context>
    <name>OpListEditBar</name>
    <message>
        <source>Add</source>
        <translation>Hinzufügen</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>Entfernen</translation>
    </message>
    <message>
        <source>Remove the selected entries (Del)</source>
        <translation>Die ausgewählten Einträge entfernen (Entf)</translation>
    </message>
    <message>
        <source>Move to</source>
        <translation>Verschieben nach</translation>
    </message>
    <message>
        <source>Move the selected ops to another list</source>
        <translation>Die ausgewählten Ops in eine andere Liste verschieben</translation>
    </message>
    <message>
        <source>Add an op to %1…</source>
        <translation>Op zu %1 hinzufügen…</translation>
    </message>
    <message>
        <source>An MXNet op name; an op in another list moves here</source>
        <translation>Name eines MXNet-Ops; ein Op aus einer anderen Liste wird hierher verschoben</translation>
    </message>
    <message>
        <source>Add: op [param=value, value…]</source>
        <translation>Hinzufügen: Op [param=Wert, Wert…]</translation>
    </message>
    <message>
        <source>An op, optionally with the attribute and its values, e.g. “LeakyReLU act_type=elu, selu”</source>
        <translation>Ein Op, optional mit dem Attribut und seinen Werten, z.&#xa0;B. „LeakyReLU act_type=elu, selu“</translation>
    </message>
    <message>
        <source>Exclude a node by name…</source>
        <translation>Knoten per Name ausschließen…</translation>
    </message>
    <message>
        <source>The name of a node of the graph</source>
        <translation>Der Name eines Knotens im Graphen</translation>
    </message>
    <message>
        <source>Include</source>
        <translation>Einbeziehen</translation>
    </message>
    <message>
        <source>Stop excluding the selected nodes (Del)</source>
        <translation>Die ausgewählten Knoten nicht mehr ausschließen (Entf)</translation>
    </message>
</context>
<context>
    <name>OpListEditor</name>
    <message>
        <source>Filter…</source>
        <translation>Filtern…</translation>
    </message>
    <message>
        <source>Show only the entries that contain this text, in every list</source>
        <translation>In allen Listen nur die Einträge anzeigen, die diesen Text enthalten</translation>
    </message>
    <message>
        <source>Move to</source>
        <translation>Verschieben nach</translation>
    </message>
    <message>
        <source>“%1” is not an MXNet 1.9.1 operator.</source>
        <translation>„%1“ ist kein Operator von MXNet 1.9.1.</translation>
    </message>
    <message>
        <source>Did you mean %1?</source>
        <translation>Meinten Sie %1?</translation>
    </message>
    <message>
        <source>%1 is an alias of %2: symbol files store canonical names, so this entry never matches a node.</source>
        <translation>%1 ist ein Alias von %2: Symboldateien speichern kanonische Namen, daher trifft dieser Eintrag nie auf einen Knoten zu.</translation>
    </message>
    <message>
        <source>%1 is already in %2.</source>
        <translation>%1 steht bereits in %2.</translation>
    </message>
    <message>
        <source>Added %1 to %2.</source>
        <translation>%1 zu %2 hinzugefügt.</translation>
    </message>
    <message>
        <source>Moved %1 from %2 to %3.</source>
        <translation>%1 von %2 nach %3 verschoben.</translation>
    </message>
    <message>
        <source>Its conditional FP32 rows were removed: an op can&apos;t be in both.</source>
        <translation>Seine bedingten FP32-Zeilen wurden entfernt: Ein Op kann nicht in beiden stehen.</translation>
    </message>
    <message>
        <source>Write an op, optionally followed by param=value, value (e.g. “LeakyReLU act_type=elu, selu”).</source>
        <translation>Geben Sie einen Op ein, optional gefolgt von param=Wert, Wert (z.&#xa0;B. „LeakyReLU act_type=elu, selu“).</translation>
    </message>
    <message>
        <source>%1 left %2: an op can&apos;t be in both a list and conditional FP32.</source>
        <translation>%1 wurde aus %2 entfernt: Ein Op kann nicht zugleich in einer Liste und in bedingt FP32 stehen.</translation>
    </message>
    <message>
        <source>Set the parameter and its values in the table.</source>
        <translation>Legen Sie den Parameter und seine Werte in der Tabelle fest.</translation>
    </message>
    <message>
        <source>%1 is already excluded.</source>
        <translation>%1 ist bereits ausgeschlossen.</translation>
    </message>
    <message>
        <source>Moved %1 to %2.</source>
        <translation>%1 nach %2 verschoben.</translation>
    </message>
    <message numerus="yes">
        <source>Moved %n ops to %1.</source>
        <translation>
            <numerusform>%n Op nach %1 verschoben.</numerusform>
            <numerusform>%n Ops nach %1 verschoben.</numerusform>
        </translation>
    </message>
    <message>
        <source>Their conditional FP32 rows were removed: an op can&apos;t be in both.</source>
        <translation>Ihre bedingten FP32-Zeilen wurden entfernt: Ein Op kann nicht in beiden stehen.</translation>
    </message>
    <message>
        <source>Remove %1 from conditional FP32 ops</source>
        <translation>%1 aus den bedingten FP32-Ops entfernen</translation>
    </message>
    <message numerus="yes">
        <source>Remove %n conditional FP32 rows</source>
        <translation>
            <numerusform>%n bedingte FP32-Zeile entfernen</numerusform>
            <numerusform>%n bedingte FP32-Zeilen entfernen</numerusform>
        </translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>Kopieren</translation>
    </message>
    <message>
        <source>Load preset %1</source>
        <translation>Voreinstellung %1 laden</translation>
    </message>
    <message>
        <source>Import Op Lists</source>
        <translation>Operatorlisten importieren</translation>
    </message>
    <message>
        <source>AMP lists (*.json);;All files (*)</source>
        <translation>AMP-Listen (*.json);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Export Op Lists</source>
        <translation>Operatorlisten exportieren</translation>
    </message>
    <message>
        <source>AMP lists (*.json)</source>
        <translation>AMP-Listen (*.json)</translation>
    </message>
    <message>
        <source>Import %1</source>
        <translation>%1 importieren</translation>
    </message>
    <message>
        <source>Cannot load the lists: %1</source>
        <translation>Die Listen können nicht geladen werden: %1</translation>
    </message>
    <message>
        <source>Cannot load the lists from %1: %2</source>
        <translation>Die Listen aus %1 können nicht geladen werden: %2</translation>
    </message>
    <message>
        <source>Rejected %1: %2</source>
        <translation>%1 abgelehnt: %2</translation>
    </message>
    <message>
        <source>Loaded %1.</source>
        <translation>%1 geladen.</translation>
    </message>
    <message numerus="yes">
        <source>Loaded %1. %n entries are not MXNet 1.9.1 operators and never match a node: %2</source>
        <translation>
            <numerusform>%1 geladen. %n Eintrag ist kein Operator von MXNet 1.9.1 und trifft nie auf einen Knoten zu: %2</numerusform>
            <numerusform>%1 geladen. %n Einträge sind keine Operatoren von MXNet 1.9.1 und treffen nie auf einen Knoten zu: %2</numerusform>
        </translation>
    </message>
    <message>
        <source>Cannot export: the conditional FP32 row of %1 has no parameter.</source>
        <translation>Export nicht möglich: Die bedingte FP32-Zeile von %1 hat keinen Parameter.</translation>
    </message>
    <message>
        <source>Cannot export to %1: %2</source>
        <translation>Export nach %1 nicht möglich: %2</translation>
    </message>
    <message>
        <source>Exported the lists to %1.</source>
        <translation>Listen nach %1 exportiert.</translation>
    </message>
    <message>
        <source>“%1” is not an ONNX op type libonnx knows.</source>
        <translation>„%1“ ist kein ONNX-Op-Typ, den libonnx kennt.</translation>
    </message>
</context>
<context>
    <name>OpListModel</name>
    <message>
        <source>%1 is not an MXNet 1.9.1 operator: this entry never matches a node.</source>
        <translation>%1 ist kein Operator von MXNet 1.9.1: Dieser Eintrag trifft nie auf einen Knoten zu.</translation>
    </message>
    <message>
        <source>%1 is an alias of %2. Symbol files store canonical names, so this entry never matches a node.</source>
        <translation>%1 ist ein Alias von %2. Symboldateien speichern kanonische Namen, daher trifft dieser Eintrag nie auf einen Knoten zu.</translation>
    </message>
</context>
<context>
    <name>OpListPages</name>
    <message>
        <source>fp32_ops: these ops run in float32; their inputs are cast to float32</source>
        <translation>fp32_ops: Diese Ops laufen in float32; ihre Eingänge werden in float32 umgewandelt</translation>
    </message>
    <message>
        <source>widest_dtype_ops: inputs are cast to the widest of their types (amp_multicast)</source>
        <translation>widest_dtype_ops: Die Eingänge werden in den breitesten ihrer Typen umgewandelt (amp_multicast)</translation>
    </message>
    <message>
        <source>neutral_ops: run in the type of their inputs; typed mode propagates dtypes through them</source>
        <translation>neutral_ops: laufen im Typ ihrer Eingänge; der typisierte Modus reicht dtypes durch sie hindurch weiter</translation>
    </message>
    <message>
        <source>conditional_fp32_ops: a node of the op runs in float32 when its attribute param is set to one of the values. Double-click a cell to edit it.</source>
        <translation>conditional_fp32_ops: Ein Knoten des Ops läuft in float32, wenn sein Attribut param auf einen der Werte gesetzt ist. Doppelklicken Sie auf eine Zelle, um sie zu bearbeiten.</translation>
    </message>
    <message>
        <source>Nodes (by name) forced out of the lists: typed mode runs them in float32, classic mode copies them unchanged</source>
        <translation>Per Name aus den Listen herausgenommene Knoten: Der typisierte Modus führt sie in float32 aus, der klassische Modus übernimmt sie unverändert</translation>
    </message>
    <message>
        <source>target_dtype_ops: these ops run in %1; their inputs are cast to %1</source>
        <translation>target_dtype_ops: Diese Ops laufen in %1; ihre Eingänge werden in %1 umgewandelt</translation>
    </message>
    <message>
        <source>%1 (%2 of %3)</source>
        <translation>%1 (%2 von %3)</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>FP32 ops</source>
        <translation>FP32-Ops</translation>
    </message>
    <message>
        <source>Widest-type ops</source>
        <translation>Ops mit breitestem Typ</translation>
    </message>
    <message>
        <source>Neutral ops</source>
        <translation>Neutrale Ops</translation>
    </message>
    <message>
        <source>Conditional FP32 ops</source>
        <translation>Bedingte FP32-Ops</translation>
    </message>
    <message>
        <source>Excluded nodes</source>
        <translation>Ausgeschlossene Knoten</translation>
    </message>
</context>
<context>
    <name>OpListView</name>
    <message>
        <source>Remove</source>
        <translation>Entfernen</translation>
    </message>
</context>
<context>
    <name>PrecisionPanel</name>
    <message>
        <source>n/a</source>
        <translation>k.&#xa0;A.</translation>
    </message>
    <message>
        <source>Max relative error</source>
        <translation>Maximaler relativer Fehler</translation>
    </message>
    <message>
        <source>Max absolute error</source>
        <translation>Maximaler absoluter Fehler</translation>
    </message>
    <message>
        <source>1 − cosine</source>
        <translation>1 − Kosinus</translation>
    </message>
    <message>
        <source>Top-1 disagreement</source>
        <translation>Top-1-Abweichung</translation>
    </message>
    <message>
        <source>Element-wise relative error (allclose)</source>
        <translation>Elementweiser relativer Fehler (allclose)</translation>
    </message>
    <message>
        <source>Calibration inputs</source>
        <translation>Kalibrierungseingaben</translation>
    </message>
    <message>
        <source>Random values (uniform 0..1)</source>
        <translation>Zufallswerte (gleichverteilt 0..1)</translation>
    </message>
    <message>
        <source>Fashion-MNIST (test images)</source>
        <translation>Fashion-MNIST (Testbilder)</translation>
    </message>
    <message>
        <source>IDX images file</source>
        <translation>IDX-Bilddatei</translation>
    </message>
    <message>
        <source>Values:</source>
        <translation>Werte:</translation>
    </message>
    <message>
        <source>NAME=SHAPE for every input, separated by spaces or semicolons (as the CLI&apos;s --input). With a dataset, the data input&apos;s shape gives the layout of a sample.</source>
        <translation>NAME=FORM für jeden Eingang, getrennt durch Leerzeichen oder Semikolons (wie --input der CLI). Mit einem Datensatz gibt die Form des Dateneingangs das Layout eines Samples vor.</translation>
    </message>
    <message>
        <source>Shapes:</source>
        <translation>Formen:</translation>
    </message>
    <message>
        <source>images-idx3-ubyte</source>
        <translation>images-idx3-ubyte</translation>
    </message>
    <message>
        <source>IDX Images File</source>
        <translation>IDX-Bilddatei</translation>
    </message>
    <message>
        <source>File:</source>
        <translation>Datei:</translation>
    </message>
    <message>
        <source>Samples of a dataset (the batch of random values is the shape&apos;s first dimension)</source>
        <translation>Samples eines Datensatzes (bei Zufallswerten ist die Batchgröße die erste Dimension der Form)</translation>
    </message>
    <message>
        <source>Seeds the random values and, without a .params file, the parameters</source>
        <translation>Seed für die Zufallswerte und, ohne .params-Datei, für die Parameter</translation>
    </message>
    <message>
        <source>Seed:</source>
        <translation>Seed:</translation>
    </message>
    <message>
        <source>Samples:</source>
        <translation>Samples:</translation>
    </message>
    <message>
        <source>Tolerance</source>
        <translation>Toleranz</translation>
    </message>
    <message>
        <source>Measured over the model&apos;s outputs against float32</source>
        <translation>Gemessen an den Ausgängen des Modells gegenüber float32</translation>
    </message>
    <message>
        <source>Metric:</source>
        <translation>Metrik:</translation>
    </message>
    <message>
        <source>At most:</source>
        <translation>Höchstens:</translation>
    </message>
    <message>
        <source>Conversions the search may run, the baseline included; it keeps the best set found</source>
        <translation>Konvertierungen, die die Suche ausführen darf, die Ausgangskonvertierung eingeschlossen; sie behält die beste gefundene Menge</translation>
    </message>
    <message>
        <source>Attempts:</source>
        <translation>Versuche:</translation>
    </message>
    <message>
        <source>&amp;Measure</source>
        <translation>&amp;Messen</translation>
    </message>
    <message>
        <source>Run float32 and the current conversion on the inputs; colour every node by its error</source>
        <translation>float32 und die aktuelle Konvertierung mit den Eingaben ausführen; jeden Knoten nach seinem Fehler einfärben</translation>
    </message>
    <message>
        <source>&amp;Find Float32 Set</source>
        <translation>&amp;Float32-Menge suchen</translation>
    </message>
    <message>
        <source>Find a small set of nodes to keep in float32 for which the outputs meet the tolerance</source>
        <translation>Eine kleine Menge von Knoten suchen, die in float32 bleiben, sodass die Ausgänge die Toleranz einhalten</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>Stoppen</translation>
    </message>
    <message>
        <source>&amp;Keep Set in Float32</source>
        <translation>Menge in Float32 &amp;belassen</translation>
    </message>
    <message>
        <source>Add the nodes found to the exclusions, as one step Undo takes back</source>
        <translation>Die gefundenen Knoten den Ausschlüssen hinzufügen, in einem Schritt, den „Rückgängig“ zurücknimmt</translation>
    </message>
    <message>
        <source>Colour the converted graph by error</source>
        <translation>Den konvertierten Graphen nach Fehler einfärben</translation>
    </message>
    <message>
        <source>Shapes</source>
        <translation>Formen</translation>
    </message>
    <message>
        <source>Measuring…</source>
        <translation>Wird gemessen…</translation>
    </message>
    <message>
        <source>Searching…</source>
        <translation>Wird gesucht…</translation>
    </message>
    <message>
        <source>error %1 (own %2) against float32</source>
        <translation>Fehler %1 (eigener %2) gegenüber float32</translation>
    </message>
    <message>
        <source>error %1 against float32 (inherited)</source>
        <translation>Fehler %1 gegenüber float32 (geerbt)</translation>
    </message>
    <message>
        <source>Running float32 and the conversion…</source>
        <translation>float32 und die Konvertierung werden ausgeführt…</translation>
    </message>
    <message>
        <source>Measuring node %1 of %2…</source>
        <translation>Knoten %1 von %2 wird gemessen…</translation>
    </message>
    <message numerus="yes">
        <source>Attempt %1: %n node(s) in float32</source>
        <translation>
            <numerusform>Versuch %1: %n Knoten in float32</numerusform>
            <numerusform>Versuch %1: %n Knoten in float32</numerusform>
        </translation>
    </message>
    <message>
        <source>, metric %1</source>
        <translation>, Metrik %1</translation>
    </message>
    <message numerus="yes">
        <source>; best so far %n node(s)</source>
        <translation>
            <numerusform>; bisher beste Menge: %n Knoten</numerusform>
            <numerusform>; bisher beste Menge: %n Knoten</numerusform>
        </translation>
    </message>
    <message>
        <source>Failed: %1</source>
        <translation>Fehlgeschlagen: %1</translation>
    </message>
    <message numerus="yes">
        <source>Searched in %1 s: %n attempt(s)</source>
        <translation>
            <numerusform>In %1 s gesucht: %n Versuch</numerusform>
            <numerusform>In %1 s gesucht: %n Versuche</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Measured %n node(s) in %1 s</source>
        <translation>
            <numerusform>%n Knoten in %1 s gemessen</numerusform>
            <numerusform>%n Knoten in %1 s gemessen</numerusform>
        </translation>
    </message>
    <message>
        <source>Output &lt;b&gt;%1&lt;/b&gt;: max rel %2, max abs %3, cosine %4</source>
        <translation>Ausgang &lt;b&gt;%1&lt;/b&gt;: max. rel. %2, max. abs. %3, Kosinus %4</translation>
    </message>
    <message numerus="yes">
        <source>reference not finite: float32 itself gives %n inf/NaN value(s); the figures cover the finite pairs only</source>
        <translation>
            <numerusform>Referenz nicht endlich: float32 selbst liefert %n inf/NaN-Wert; die Zahlen betreffen nur die endlichen Paare</numerusform>
            <numerusform>Referenz nicht endlich: float32 selbst liefert %n inf/NaN-Werte; die Zahlen betreffen nur die endlichen Paare</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n value(s) not finite in %1</source>
        <translation>
            <numerusform>%n Wert in %1 nicht endlich</numerusform>
            <numerusform>%n Werte in %1 nicht endlich</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;Found:&lt;/b&gt; %n node(s) in float32 give %1 %2 (at most %3)</source>
        <translation>
            <numerusform>&lt;b&gt;Gefunden:&lt;/b&gt; %n Knoten in float32 ergibt: %1 %2 (höchstens %3)</numerusform>
            <numerusform>&lt;b&gt;Gefunden:&lt;/b&gt; %n Knoten in float32 ergeben: %1 %2 (höchstens %3)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;Not met:&lt;/b&gt; the best set (%n node(s)) gives %1 %2, above %3</source>
        <translation>
            <numerusform>&lt;b&gt;Nicht erreicht:&lt;/b&gt; Die beste Menge (%n Knoten) ergibt: %1 %2, über %3</numerusform>
            <numerusform>&lt;b&gt;Nicht erreicht:&lt;/b&gt; Die beste Menge (%n Knoten) ergibt: %1 %2, über %3</numerusform>
        </translation>
    </message>
    <message>
        <source>Stopped: the best set so far.</source>
        <translation>Gestoppt: die bisher beste Menge.</translation>
    </message>
    <message>
        <source>Stopped: the nodes measured so far.</source>
        <translation>Gestoppt: die bisher gemessenen Knoten.</translation>
    </message>
    <message>
        <source>Out of date: the conversion has changed since; measure again.</source>
        <translation>Veraltet: Die Konvertierung hat sich seitdem geändert; bitte erneut messen.</translation>
    </message>
    <message>
        <source>NumPy files (.npz, .npy)</source>
        <translation>NumPy-Dateien (.npz, .npy)</translation>
    </message>
    <message>
        <source>NumPy files, separated by semicolons: each array fills the input of its name (a file&apos;s only array fills the data input); or one IDX images file</source>
        <translation>NumPy-Dateien, getrennt durch Semikolons: Jedes Array füllt den gleichnamigen Eingang (das einzige Array einer Datei füllt den Dateneingang); oder eine IDX-Bilddatei</translation>
    </message>
    <message>
        <source>NumPy Files</source>
        <translation>NumPy-Dateien</translation>
    </message>
    <message>
        <source>NumPy arrays (*.npz *.npy);;All files (*)</source>
        <translation>NumPy-Arrays (*.npz *.npy);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Give the inputs&apos; shapes (NAME=SHAPE, e.g. data=8,784), or choose NumPy files or a dataset</source>
        <translation>Geben Sie die Formen der Eingänge an (NAME=FORM, z.&#xa0;B. data=8,784) oder wählen Sie NumPy-Dateien oder einen Datensatz</translation>
    </message>
    <message>
        <source>inputs.npz; more.npz</source>
        <translation>inputs.npz; more.npz</translation>
    </message>
</context>
<context>
    <name>PrecisionTableModel</name>
    <message numerus="yes">
        <source> (+%n more)</source>
        <translation>
            <numerusform> (+%n weitere)</numerusform>
            <numerusform> (+%n weitere)</numerusform>
        </translation>
    </message>
    <message>
        <source>This node could not be run on its own.</source>
        <translation>Dieser Knoten konnte nicht allein ausgeführt werden.</translation>
    </message>
    <message>
        <source>Computes in float32: its error is inherited only.</source>
        <translation>Rechnet in float32: Sein Fehler ist nur geerbt.</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>Knoten</translation>
    </message>
    <message>
        <source>Op</source>
        <translation>Op</translation>
    </message>
    <message>
        <source>Runs in</source>
        <translation>Läuft in</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>Fehler</translation>
    </message>
    <message>
        <source>Own error</source>
        <translation>Eigener Fehler</translation>
    </message>
    <message>
        <source>Cosine</source>
        <translation>Kosinus</translation>
    </message>
    <message>
        <source>Max |x|</source>
        <translation>Max |x|</translation>
    </message>
    <message>
        <source>Overflow</source>
        <translation>Überlauf</translation>
    </message>
    <message>
        <source>Subnormal</source>
        <translation>Subnormal</translation>
    </message>
    <message>
        <source>Warnings</source>
        <translation>Warnungen</translation>
    </message>
    <message>
        <source>Max relative error of the node&apos;s output in the converted model against float32 (max |c − r| / max |r|): created here and inherited from upstream</source>
        <translation>Maximaler relativer Fehler der Ausgabe des Knotens im konvertierten Modell gegenüber float32 (max |c − r| / max |r|): hier entstanden und von vorgelagerten Knoten geerbt</translation>
    </message>
    <message>
        <source>The node alone in the low dtype on exact float32 inputs: the error it creates itself</source>
        <translation>Der Knoten allein im niedrigen dtype mit exakten float32-Eingängen: der Fehler, den er selbst erzeugt</translation>
    </message>
    <message>
        <source>The largest magnitude of its float32 output</source>
        <translation>Der größte Betrag seiner float32-Ausgabe</translation>
    </message>
    <message>
        <source>Share of its float32 values beyond the target dtype&apos;s largest value: they become inf</source>
        <translation>Anteil seiner float32-Werte über dem größten Wert des Ziel-dtype: Sie werden zu inf</translation>
    </message>
    <message>
        <source>Share of its non-zero float32 values below the target dtype&apos;s smallest normal</source>
        <translation>Anteil seiner von null verschiedenen float32-Werte unter dem kleinsten normalen Wert des Ziel-dtype</translation>
    </message>
</context>
<context>
    <name>PreferencesDialog</name>
    <message>
        <source>Preferences</source>
        <translation>Einstellungen</translation>
    </message>
    <message>
        <source>System default</source>
        <translation>Systemstandard</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>Hell</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>Dunkel</translation>
    </message>
    <message>
        <source>&amp;Language:</source>
        <translation>&amp;Sprache:</translation>
    </message>
    <message>
        <source>&amp;Theme:</source>
        <translation>&amp;Design:</translation>
    </message>
    <message>
        <source>Changes take effect when AMP Studio is started again.</source>
        <translation>Änderungen werden beim nächsten Start von AMP Studio wirksam.</translation>
    </message>
</context>
<context>
    <name>TrainingChart</name>
    <message>
        <source>Could not write %1: %2</source>
        <translation>%1 konnte nicht geschrieben werden: %2</translation>
    </message>
</context>
<context>
    <name>TrainingChartsPanel</name>
    <message>
        <source>&amp;Log loss axis</source>
        <translation>&amp;Logarithmische Loss-Achse</translation>
    </message>
    <message>
        <source>&amp;Compare with previous run</source>
        <translation>Mit vorherigem Lauf &amp;vergleichen</translation>
    </message>
    <message>
        <source>Overlay the previous run&apos;s smoothed loss, accuracy and loss scale (grey)</source>
        <translation>Geglätteten Loss, Genauigkeit und Loss-Skalierung des vorherigen Laufs einblenden (grau)</translation>
    </message>
    <message>
        <source>&amp;Follow</source>
        <translation>&amp;Folgen</translation>
    </message>
    <message>
        <source>Show the whole run as it grows. Wheel zooms, drag pans, a double click follows again.</source>
        <translation>Den ganzen Lauf zeigen, während er wächst. Das Mausrad zoomt, Ziehen verschiebt, ein Doppelklick folgt wieder.</translation>
    </message>
    <message>
        <source>&amp;Export</source>
        <translation>&amp;Exportieren</translation>
    </message>
    <message>
        <source>Loss Chart as PNG…</source>
        <translation>Loss-Diagramm als PNG…</translation>
    </message>
    <message>
        <source>Loss-Scale Chart as PNG…</source>
        <translation>Diagramm der Loss-Skalierung als PNG…</translation>
    </message>
    <message>
        <source>Metrics as CSV…</source>
        <translation>Metriken als CSV…</translation>
    </message>
    <message>
        <source>step</source>
        <translation>Schritt</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>Loss</translation>
    </message>
    <message>
        <source>accuracy %</source>
        <translation>Genauigkeit in&#xa0;%</translation>
    </message>
    <message>
        <source>previous run</source>
        <translation>vorheriger Lauf</translation>
    </message>
    <message>
        <source>previous accuracy</source>
        <translation>vorherige Genauigkeit</translation>
    </message>
    <message>
        <source>loss per step</source>
        <translation>Loss pro Schritt</translation>
    </message>
    <message>
        <source>smoothed</source>
        <translation>geglättet</translation>
    </message>
    <message>
        <source>validation loss</source>
        <translation>Validierungs-Loss</translation>
    </message>
    <message>
        <source>validation accuracy</source>
        <translation>Validierungsgenauigkeit</translation>
    </message>
    <message>
        <source>loss scale</source>
        <translation>Loss-Skalierung</translation>
    </message>
    <message>
        <source>skipped step (overflow)</source>
        <translation>übersprungener Schritt (Überlauf)</translation>
    </message>
    <message>
        <source>not started</source>
        <translation>nicht gestartet</translation>
    </message>
    <message>
        <source>previous: %1</source>
        <translation>vorher: %1</translation>
    </message>
    <message>
        <source>loading the dataset…</source>
        <translation>Datensatz wird geladen…</translation>
    </message>
    <message>
        <source>step %1 of %2</source>
        <translation>Schritt %1 von %2</translation>
    </message>
    <message>
        <source> · epoch %1 of %2</source>
        <translation> · Epoche %1 von %2</translation>
    </message>
    <message>
        <source> · ETA %1</source>
        <translation> · Restzeit %1</translation>
    </message>
    <message numerus="yes">
        <source>%1 samples/s · loss scale %2 · %n skipped</source>
        <translation>
            <numerusform>%1 Samples/s · Loss-Skalierung %2 · %n übersprungen</numerusform>
            <numerusform>%1 Samples/s · Loss-Skalierung %2 · %n übersprungen</numerusform>
        </translation>
    </message>
    <message>
        <source> · warning: the loss scale fell below 1</source>
        <translation> · Warnung: Die Loss-Skalierung ist unter 1 gefallen</translation>
    </message>
    <message>
        <source>Paused · </source>
        <translation>Pausiert · </translation>
    </message>
    <message>
        <source>step %1 (epoch %2)
loss scale %3
loss %4</source>
        <translation>Schritt %1 (Epoche %2)
Loss-Skalierung %3
Loss %4</translation>
    </message>
    <message>
        <source>
skipped: the gradients overflowed</source>
        <translation>
übersprungen: Die Gradienten sind übergelaufen</translation>
    </message>
    <message>
        <source>Export Chart</source>
        <translation>Diagramm exportieren</translation>
    </message>
    <message>
        <source>PNG images (*.png)</source>
        <translation>PNG-Bilder (*.png)</translation>
    </message>
    <message>
        <source>Wrote %1</source>
        <translation>%1 geschrieben</translation>
    </message>
</context>
<context>
    <name>TrainingMonitor</name>
    <message>
        <source>&amp;Start</source>
        <translation>&amp;Starten</translation>
    </message>
    <message>
        <source>Train with these settings (Ctrl+T)</source>
        <translation>Mit diesen Einstellungen trainieren (Strg+T)</translation>
    </message>
    <message>
        <source>&amp;Pause</source>
        <translation>&amp;Pause</translation>
    </message>
    <message>
        <source>S&amp;top</source>
        <translation>S&amp;toppen</translation>
    </message>
    <message>
        <source>Save &amp;Weights…</source>
        <translation>&amp;Gewichte speichern…</translation>
    </message>
    <message>
        <source>Save the trained model as PREFIX-symbol.json and PREFIX-NNNN.params</source>
        <translation>Das trainierte Modell als PRÄFIX-symbol.json und PRÄFIX-NNNN.params speichern</translation>
    </message>
    <message>
        <source>&amp;Resume</source>
        <translation>F&amp;ortsetzen</translation>
    </message>
    <message>
        <source>Loading the dataset…</source>
        <translation>Datensatz wird geladen…</translation>
    </message>
    <message>
        <source>Training: %1</source>
        <translation>Training: %1</translation>
    </message>
    <message>
        <source>Training paused</source>
        <translation>Training pausiert</translation>
    </message>
    <message numerus="yes">
        <source>Training finished after %n steps.</source>
        <translation>
            <numerusform>Training nach %n Schritt abgeschlossen.</numerusform>
            <numerusform>Training nach %n Schritten abgeschlossen.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Training stopped after %n steps.</source>
        <translation>
            <numerusform>Training nach %n Schritt gestoppt.</numerusform>
            <numerusform>Training nach %n Schritten gestoppt.</numerusform>
        </translation>
    </message>
    <message>
        <source>Save the trained weights…</source>
        <translation>Trainierte Gewichte speichern…</translation>
    </message>
    <message>
        <source>Training failed: %1</source>
        <translation>Training fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>Training failed</source>
        <translation>Training fehlgeschlagen</translation>
    </message>
    <message>
        <source>Saved %1-symbol.json and %2</source>
        <translation>%1-symbol.json und %2 gespeichert</translation>
    </message>
    <message>
        <source>Save Trained Weights</source>
        <translation>Trainierte Gewichte speichern</translation>
    </message>
    <message>
        <source>MXNet checkpoint (*-symbol.json)</source>
        <translation>MXNet-Checkpoint (*-symbol.json)</translation>
    </message>
    <message>
        <source>Export Metrics</source>
        <translation>Metriken exportieren</translation>
    </message>
    <message>
        <source>CSV files (*.csv)</source>
        <translation>CSV-Dateien (*.csv)</translation>
    </message>
    <message>
        <source>Wrote %1 and its -epochs.csv</source>
        <translation>%1 und die zugehörige -epochs.csv geschrieben</translation>
    </message>
</context>
<context>
    <name>TrainingRun</name>
    <message>
        <source>There are no trained weights to save.</source>
        <translation>Es gibt keine trainierten Gewichte zum Speichern.</translation>
    </message>
    <message>
        <source>%1 is the model you opened; choose another name so that it is not overwritten.</source>
        <translation>%1 ist das geöffnete Modell; wählen Sie einen anderen Namen, damit es nicht überschrieben wird.</translation>
    </message>
</context>
<context>
    <name>TrainingSettingsForm</name>
    <message>
        <source>FP32</source>
        <translation>FP32</translation>
    </message>
    <message>
        <source>AMP (float16)</source>
        <translation>AMP (float16)</translation>
    </message>
    <message>
        <source>FP16 master weights</source>
        <translation>FP16 mit Master-Gewichten</translation>
    </message>
    <message>
        <source>BF16 (AMP)</source>
        <translation>BF16 (AMP)</translation>
    </message>
    <message>
        <source>BF16 master weights</source>
        <translation>BF16 mit Master-Gewichten</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Modell</translation>
    </message>
    <message>
        <source>Original (FP32 graph)</source>
        <translation>Original (FP32-Graph)</translation>
    </message>
    <message>
        <source>Current conversion</source>
        <translation>Aktuelle Konvertierung</translation>
    </message>
    <message>
        <source>Train the graph as loaded, or the conversion the op lists and exclusions give now.</source>
        <translation>Den Graphen wie geladen trainieren oder die Konvertierung, die sich aus den aktuellen Operatorlisten und Ausschlüssen ergibt.</translation>
    </message>
    <message>
        <source>Train:</source>
        <translation>Trainieren:</translation>
    </message>
    <message>
        <source>Loaded parameters</source>
        <translation>Geladene Parameter</translation>
    </message>
    <message>
        <source>Fresh initialisation</source>
        <translation>Neue Initialisierung</translation>
    </message>
    <message>
        <source>Fresh initialisation follows MXNet&apos;s naming: *_weight Xavier, *_bias zeros, *_gamma ones.</source>
        <translation>Die neue Initialisierung folgt der Namenskonvention von MXNet: *_weight mit Xavier, *_bias mit Nullen, *_gamma mit Einsen.</translation>
    </message>
    <message>
        <source>Start from:</source>
        <translation>Ausgangspunkt:</translation>
    </message>
    <message>
        <source>Automatic</source>
        <translation>Automatisch</translation>
    </message>
    <message>
        <source>CPU %1</source>
        <translation>CPU %1</translation>
    </message>
    <message>
        <source>CUDA (not in this build)</source>
        <translation>CUDA (in diesem Build nicht enthalten)</translation>
    </message>
    <message>
        <source>CUDA (no device)</source>
        <translation>CUDA (kein Gerät)</translation>
    </message>
    <message numerus="yes">
        <source>CUDA (%n device(s))</source>
        <translation>
            <numerusform>CUDA (%n Gerät)</numerusform>
            <numerusform>CUDA (%n Geräte)</numerusform>
        </translation>
    </message>
    <message>
        <source>Automatic trains on the GPU when one is present and the CUDA backend runs every op of the model, else on the CPU.</source>
        <translation>Automatisch trainiert auf der GPU, wenn eine vorhanden ist und das CUDA-Backend jeden Operator des Modells ausführen kann, sonst auf der CPU.</translation>
    </message>
    <message>
        <source>Backend:</source>
        <translation>Backend:</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>Genauigkeit</translation>
    </message>
    <message>
        <source>AMP converts the graph with the op lists and keeps FP32 parameters; master-weight modes store parameters in the low dtype with an FP32 copy for the optimizer.</source>
        <translation>AMP konvertiert den Graphen mit den Operatorlisten und behält FP32-Parameter bei; die Modi mit Master-Gewichten speichern die Parameter im niedrigen dtype, mit einer FP32-Kopie für den Optimierer.</translation>
    </message>
    <message>
        <source>Mode:</source>
        <translation>Modus:</translation>
    </message>
    <message>
        <source>PyTorch GradScaler</source>
        <translation>PyTorch GradScaler</translation>
    </message>
    <message>
        <source>Apex</source>
        <translation>Apex</translation>
    </message>
    <message>
        <source>fastai</source>
        <translation>fastai</translation>
    </message>
    <message>
        <source>DeepSpeed</source>
        <translation>DeepSpeed</translation>
    </message>
    <message>
        <source>Static</source>
        <translation>Statisch</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>Aus</translation>
    </message>
    <message>
        <source>Loss scaler:</source>
        <translation>Loss-Skalierung:</translation>
    </message>
    <message>
        <source>The initial loss scale, as a power of two.</source>
        <translation>Die anfängliche Loss-Skalierung als Zweierpotenz.</translation>
    </message>
    <message>
        <source>Initial scale:</source>
        <translation>Anfangsskalierung:</translation>
    </message>
    <message>
        <source>Clean steps before the scale doubles.</source>
        <translation>Schritte ohne Überlauf, bevor sich die Skalierung verdoppelt.</translation>
    </message>
    <message>
        <source>Growth interval:</source>
        <translation>Wachstumsintervall:</translation>
    </message>
    <message>
        <source>Data</source>
        <translation>Daten</translation>
    </message>
    <message>
        <source>Fashion-MNIST</source>
        <translation>Fashion-MNIST</translation>
    </message>
    <message>
        <source>Fashion-MNIST (not installed)</source>
        <translation>Fashion-MNIST (nicht installiert)</translation>
    </message>
    <message>
        <source>Two spirals (synthetic)</source>
        <translation>Zwei Spiralen (synthetisch)</translation>
    </message>
    <message>
        <source>Gaussian blobs (synthetic)</source>
        <translation>Gaußsche Punktwolken (synthetisch)</translation>
    </message>
    <message>
        <source>Regression y = a·x + b (synthetic)</source>
        <translation>Regression y = a·x + b (synthetisch)</translation>
    </message>
    <message>
        <source>CSV file…</source>
        <translation>CSV-Datei…</translation>
    </message>
    <message>
        <source>IDX folder (MNIST format)…</source>
        <translation>IDX-Ordner (MNIST-Format)…</translation>
    </message>
    <message>
        <source>Dataset:</source>
        <translation>Datensatz:</translation>
    </message>
    <message>
        <source>…</source>
        <translation>…</translation>
    </message>
    <message>
        <source>Choose the file or folder</source>
        <translation>Datei oder Ordner auswählen</translation>
    </message>
    <message>
        <source>File:</source>
        <translation>Datei:</translation>
    </message>
    <message>
        <source>Label column:</source>
        <translation>Label-Spalte:</translation>
    </message>
    <message>
        <source>Classification</source>
        <translation>Klassifikation</translation>
    </message>
    <message>
        <source>Regression</source>
        <translation>Regression</translation>
    </message>
    <message>
        <source>Task:</source>
        <translation>Aufgabe:</translation>
    </message>
    <message>
        <source>Batch size:</source>
        <translation>Batchgröße:</translation>
    </message>
    <message>
        <source>Epochs:</source>
        <translation>Epochen:</translation>
    </message>
    <message>
        <source>no limit</source>
        <translation>unbegrenzt</translation>
    </message>
    <message>
        <source>Stop after steps:</source>
        <translation>Stopp nach Schritten:</translation>
    </message>
    <message>
        <source>Initialisation, shuffling, the validation split and dropout: the same seed gives the same run.</source>
        <translation>Initialisierung, Mischen, Aufteilung der Validierungsdaten und Dropout: Derselbe Seed ergibt denselben Lauf.</translation>
    </message>
    <message>
        <source>Seed:</source>
        <translation>Seed:</translation>
    </message>
    <message>
        <source>Optimizer</source>
        <translation>Optimierer</translation>
    </message>
    <message>
        <source>SGD</source>
        <translation>SGD</translation>
    </message>
    <message>
        <source>Adam</source>
        <translation>Adam</translation>
    </message>
    <message>
        <source>AdamW</source>
        <translation>AdamW</translation>
    </message>
    <message>
        <source>Optimizer:</source>
        <translation>Optimierer:</translation>
    </message>
    <message>
        <source>Learning rate:</source>
        <translation>Lernrate:</translation>
    </message>
    <message>
        <source>Momentum:</source>
        <translation>Momentum:</translation>
    </message>
    <message>
        <source>Weight decay:</source>
        <translation>Weight Decay:</translation>
    </message>
    <message>
        <source>Constant</source>
        <translation>Konstant</translation>
    </message>
    <message>
        <source>Step decay</source>
        <translation>Stufenweise Abnahme</translation>
    </message>
    <message>
        <source>Cosine</source>
        <translation>Kosinus</translation>
    </message>
    <message>
        <source>One-cycle</source>
        <translation>One-Cycle</translation>
    </message>
    <message>
        <source>Schedule:</source>
        <translation>Lernratenplan:</translation>
    </message>
    <message>
        <source>Decay every:</source>
        <translation>Abnahme alle:</translation>
    </message>
    <message>
        <source>Decay factor:</source>
        <translation>Abnahmefaktor:</translation>
    </message>
    <message>
        <source>off</source>
        <translation>aus</translation>
    </message>
    <message>
        <source>Clip the unscaled gradients to this global L2 norm.</source>
        <translation>Die unskalierten Gradienten auf diese globale L2-Norm begrenzen.</translation>
    </message>
    <message>
        <source>Clip gradients:</source>
        <translation>Gradienten begrenzen:</translation>
    </message>
    <message>
        <source>This model cannot be trained: %1.</source>
        <translation>Dieses Modell kann nicht trainiert werden: %1.</translation>
    </message>
    <message>
        <source>Current conversion (%1)</source>
        <translation>Aktuelle Konvertierung (%1)</translation>
    </message>
    <message numerus="yes">
        <source>Current conversion (%1, %n excluded)</source>
        <translation>
            <numerusform>Aktuelle Konvertierung (%1, %n Knoten ausgeschlossen)</numerusform>
            <numerusform>Aktuelle Konvertierung (%1, %n Knoten ausgeschlossen)</numerusform>
        </translation>
    </message>
    <message>
        <source>The current conversion trains as AMP in its target dtype.</source>
        <translation>Die aktuelle Konvertierung wird als AMP in ihrem Ziel-dtype trainiert.</translation>
    </message>
    <message>
        <source>folder with train-images-idx3-ubyte[.gz]</source>
        <translation>Ordner mit train-images-idx3-ubyte[.gz]</translation>
    </message>
    <message>
        <source>numeric columns with a header</source>
        <translation>numerische Spalten mit Kopfzeile</translation>
    </message>
    <message>
        <source>Open a model to train it.</source>
        <translation>Öffnen Sie ein Modell, um es zu trainieren.</translation>
    </message>
    <message>
        <source>No CUDA device is present: choose the CPU or Automatic.</source>
        <translation>Kein CUDA-Gerät vorhanden: Wählen Sie die CPU oder Automatisch.</translation>
    </message>
    <message>
        <source>This build has no CUDA backend: choose the CPU or Automatic.</source>
        <translation>Dieser Build hat kein CUDA-Backend: Wählen Sie die CPU oder Automatisch.</translation>
    </message>
    <message>
        <source>Fashion-MNIST is not installed (Debian package dataset-fashion-mnist). Install it or choose another dataset.</source>
        <translation>Fashion-MNIST ist nicht installiert (Debian-Paket dataset-fashion-mnist). Installieren Sie es oder wählen Sie einen anderen Datensatz.</translation>
    </message>
    <message>
        <source>Choose the CSV file to train on.</source>
        <translation>Wählen Sie die CSV-Datei, mit der trainiert werden soll.</translation>
    </message>
    <message>
        <source>Choose the folder that holds the IDX files.</source>
        <translation>Wählen Sie den Ordner, der die IDX-Dateien enthält.</translation>
    </message>
    <message>
        <source>%1 does not exist.</source>
        <translation>%1 existiert nicht.</translation>
    </message>
    <message>
        <source>The model and the dataset do not fit: %1.</source>
        <translation>Modell und Datensatz passen nicht zusammen: %1.</translation>
    </message>
    <message>
        <source>IDX Folder</source>
        <translation>IDX-Ordner</translation>
    </message>
    <message>
        <source>CSV File</source>
        <translation>CSV-Datei</translation>
    </message>
    <message>
        <source>CSV files (*.csv);;All files (*)</source>
        <translation>CSV-Dateien (*.csv);;Alle Dateien (*)</translation>
    </message>
</context>
<context>
    <name>TrainingSetup</name>
    <message>
        <source> (conversion)</source>
        <translation> (Konvertierung)</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>Mixed-precision conversion and training studio</source>
        <translation>Studio für Mixed-Precision-Konvertierung und -Training</translation>
    </message>
    <message>
        <source>MXNet symbol or .params file to open (default: the MLP example)</source>
        <translation>Zu öffnende MXNet-Symbol- oder .params-Datei (Standard: das MLP-Beispiel)</translation>
    </message>
    <message>
        <source>Save a screenshot of the window and quit.</source>
        <translation>Ein Bildschirmfoto des Fensters speichern und beenden.</translation>
    </message>
    <message>
        <source>Select this node (with --screenshot).</source>
        <translation>Diesen Knoten auswählen (mit --screenshot).</translation>
    </message>
    <message>
        <source>Zoom factor (with --screenshot).</source>
        <translation>Zoomfaktor (mit --screenshot).</translation>
    </message>
    <message>
        <source>Window size WIDTHxHEIGHT (with --screenshot).</source>
        <translation>Fenstergröße BREITExHÖHE (mit --screenshot).</translation>
    </message>
    <message>
        <source>Start training with the saved training settings.</source>
        <translation>Das Training mit den gespeicherten Trainingseinstellungen starten.</translation>
    </message>
    <message>
        <source>Measure the conversion&apos;s error node by node (the Precision panel&apos;s Measure, on its suggested inputs).</source>
        <translation>Den Fehler der Konvertierung Knoten für Knoten messen („Messen“ im Panel „Genauigkeit“, mit den dort vorgeschlagenen Eingaben).</translation>
    </message>
    <message>
        <source>Open this name scope&apos;s group (with --screenshot; repeatable).</source>
        <translation>Die Gruppe dieses Namensbereichs öffnen (mit --screenshot; wiederholbar).</translation>
    </message>
</context>
</TS>
