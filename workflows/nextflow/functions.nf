// Functions of the hspZ pipeline (main.nf includes them).  Plain Groovy that the strict syntax
// accepts; tests/bats/nextflow.bats runs them with groovy, since Nextflow cannot run here.

// A boolean parameter as a Boolean.  On the command line `--gapped false` gives the String
// 'false' (truthy in Groovy; the strict parser detects no types on the command line) and a
// bare `--gapped` gives true; params files and configs give Booleans.  'true'/'false' in any
// case are accepted; anything else is an error naming NAME.
def asBool(name, value) {
    if (value instanceof Boolean) {
        return value
    }
    def s = value == null ? '' : value.toString().trim().toLowerCase()
    if (s == 'true') {
        return true
    }
    if (s == 'false') {
        return false
    }
    error("--${name}: '${value}' is neither true nor false")
}

// A whole-number parameter as an Integer (the command line gives the String '2'); anything but
// an optional minus sign and digits is an error naming NAME.
def asInt(name, value) {
    def s = value == null ? '' : value.toString().trim()
    if (!(s ==~ '-?[0-9]+')) {
        error("--${name}: '${value}' is not a whole number")
    }
    return s.toInteger()
}

// The lastz output format of an hspz_args string: the value of its last --format (or
// --format=) flag, else hspz's default 'maf-'.
def lastzFormat(hspzArgs) {
    def words = (hspzArgs ?: '').tokenize(' \t')
    def at = (0..<words.size()).findAll { i -> words[i].startsWith('--format=') || (words[i] == '--format' && i + 1 < words.size()) }
    if (!at) {
        return 'maf-'
    }
    def i = at.last()
    return words[i] == '--format' ? words[i + 1] : words[i].substring('--format='.length())
}

// The extension of the combined alignment file of lastz format FORMAT, as batched_lastz names
// its output: maf, maf+, maf- -> maf; axt, axt+ -> axt; sam, sam-, softsam, softsam- -> sam;
// cigar; differences -> interval; lav, lav+text -> lav; anything else (general...) -> tabular.
def alignmentExtension(format) {
    def kinds = [
        'axt': 'axt', 'axt+': 'axt', 'cigar': 'cigar', 'differences': 'interval',
        'lav': 'lav', 'lav+text': 'lav', 'maf': 'maf', 'maf+': 'maf', 'maf-': 'maf',
        'sam': 'sam', 'sam-': 'sam', 'softsam': 'sam', 'softsam-': 'sam'
    ]
    return kinds.containsKey(format) ? kinds[format] : 'tabular'
}

// The first text of the combined file: batched_lastz writes one '##maf version=1' line before
// the alignments of a MAF format and nothing before the others.
def alignmentHeader(format) {
    return alignmentExtension(format) == 'maf' ? '##maf version=1\n' : ''
}

// The tool of the gapped stage (--gapped_tool): 'hspz' (hspz gapped, one task per pair on the
// merged folder, all of the task's cpus) or 'lastz' (one lastz task per command of the data
// package, batched_lastz's way); any case, blanks trimmed; anything else is an error.
def gappedTool(value) {
    def s = value == null ? '' : value.toString().trim().toLowerCase()
    if (s == 'hspz' || s == 'lastz') {
        return s
    }
    error("--gapped_tool: '${value}' is neither hspz nor lastz")
}

// Whether hspz gapped writes lastz format FORMAT (docs/gapped.md: maf-, maf, axt, axt+); the
// others need --gapped_tool lastz.
def hspzGappedWrites(format) {
    return format in ['maf-', 'maf', 'axt', 'axt+']
}
