import FoundationEssentials
import Testing

@testable import FeedCrawlKit

/// What the group table keeps per group in less memory (`CompactHex`, `StatusTally`) reads and
/// codes as the strings and dictionaries it replaced: a table written before reads the same,
/// and one written now reads the same in a version that kept strings.
@Suite struct GroupEntryCompactTests {
    @Test(arguments: [
        "", "0", "0123456789abcdef", String(repeating: "f", count: 64), String(repeating: "a", count: 32) + "0123",
        String(repeating: "a", count: 65), "ABCDEF", "totalHits=15000", "g", "01 23", "ü",
    ])
    func compactHexGivesBackItsText(_ text: String) throws {
        let compact = CompactHex(text)
        #expect(compact.text == text)
        let coded = try JSONEncoder().encode(compact)
        #expect(try JSONDecoder().decode(String.self, from: coded) == text)
        #expect(try JSONDecoder().decode(CompactHex.self, from: coded) == compact)
    }

    @Test func statusTallyReadsAndCodesAsTheDictionaryDid() throws {
        var tally: StatusTally = ["downloaded": 3, "no-image": 1]
        #expect(tally["downloaded"] == 3 && tally["no-image"] == 1 && tally["fresh"] == nil)
        tally["fresh", default: 0] += 2
        tally["downloaded", default: 0] -= 3
        #expect(tally["downloaded"] == nil, "a count of 0 is no count")
        #expect(tally.removeValue(forKey: "fresh") == 2 && tally["fresh"] == nil)
        tally["from-a-newer-version"] = 4
        #expect(Dictionary(uniqueKeysWithValues: tally.map { ($0.key, $0.value) }) == ["no-image": 1, "from-a-newer-version": 4])
        let coded = try JSONEncoder().encode(tally)
        #expect(try JSONDecoder().decode([String: Int].self, from: coded) == ["no-image": 1, "from-a-newer-version": 4])
        #expect(try JSONDecoder().decode(StatusTally.self, from: coded) == tally)
        tally["from-a-newer-version"] = nil
        tally["no-image"] = 0
        #expect(tally.isEmpty && tally == [:])
    }

    /// Counting by case (`add`) and by name reach the same counter for every status, in and out.
    @Test func statusTallyCountsByCaseAsByName() {
        for status in ItemStatus.allCases {
            var byCase = StatusTally()
            byCase.add(status, 2)
            var byName = StatusTally()
            byName[status.rawValue, default: 0] += 2
            #expect(byCase == byName && byCase[status.rawValue] == 2, "\(status)")
            #expect(Array(byCase.map(\.key)) == [status.rawValue])
            byCase.add(status, -2)
            #expect(byCase.isEmpty, "\(status)")
        }
    }

    /// A table line as this version's predecessor wrote it reads back, and is written again,
    /// with the same fields and values.
    @Test func aGroupTableLineRoundTrips() throws {
        let line = #"{"counts":{"downloaded":3},"digest":"884b630a85fd2e2f2f1bb34478941afeb4b972509fa618a0fd0e5d58aba4ba22","fetched":1796656335.9350412,"firstListed":1796656335230,"g":1,"images":{"downloaded":3},"items":3,"lastListed":1796656335230,"length":2229,"offset":0,"oldestFetch":1796656335,"page":1,"paging":"totalHits=15000","recipe":"09ef0fecfaeeb5221c54b9f3f4bac330","request":"4c936eb8dffc42de3b000d6e88d34ae32d0e0f563fd6f3de973808da1c55b61a","retry":false,"segment":"journal/20261207151215230-b4e34db3-0.ndjson","source":"pixabay"}"#
        let second = line.replacingOccurrences(of: #""g":1"#, with: #""g":2"#).replacingOccurrences(of: #""page":1"#, with: #""page":2"#)
        let table = try GroupTable.decode(Array((line + "\n" + second + "\n").utf8))
        #expect(table.count == 2)
        let entry = try #require(table.entry(1))
        #expect(entry.digest == "884b630a85fd2e2f2f1bb34478941afeb4b972509fa618a0fd0e5d58aba4ba22")
        #expect(entry.recipe == "09ef0fecfaeeb5221c54b9f3f4bac330")
        #expect(entry.request == "4c936eb8dffc42de3b000d6e88d34ae32d0e0f563fd6f3de973808da1c55b61a")
        #expect(entry.counts["downloaded"] == 3 && entry.images["downloaded"] == 3 && entry.paging == "totalHits=15000")
        // Read in two pieces, cut anywhere (`Repository` reads a table in ranges): the same table.
        let bytes = Array((line + "\n" + second).utf8)
        for cut in 0...bytes.count {
            var reader = GroupTable.Reader()
            try reader.read(Array(bytes[..<cut]))
            try reader.read(Array(bytes[cut...]))
            #expect(try reader.finish() == table, "cut at \(cut)")
        }
        // Written in pieces (`Repository` stages the table as it goes): the same text.
        var pieces: [[UInt8]] = []
        try table.encode(piece: 100) { pieces.append($0) }
        let whole = try table.encoded()
        #expect(pieces.count == 2 && pieces.joined().elementsEqual(whole))
        let written = String(decoding: try table.encoded(), as: UTF8.self).split(separator: "\n").map(String.init)
        func fields(_ text: String) throws -> TableLineFields { try JSONDecoder().decode(TableLineFields.self, from: Data(text.utf8)) }
        #expect(try written.map(fields).sorted { $0.g < $1.g } == [try fields(line), try fields(second)])
    }

    /// Groups put in at once end in the table's order (source, page, newest first), whether the
    /// table was empty (it takes their storage) or not, the sort moving entries cycle by cycle.
    @Test func groupsPutAtOnceEndInTheTablesOrder() throws {
        let line = #"{"counts":{"downloaded":3},"firstListed":1,"g":1,"images":{"downloaded":3},"items":3,"lastListed":1,"length":10,"offset":0,"page":1,"retry":false,"segment":"journal/a.ndjson","source":"pixabay"}"#
        let template = try #require(try GroupTable.decode(Array(line.utf8)).entry(1))
        var random = TestRandom(seed: 0x5EED_7AB1E)
        func groups(_ numbers: Range<UInt32>) -> [GroupEntry] {
            numbers.map { number in
                var entry = template
                entry.number = number
                entry.source = ["pixabay", "launches", "a-b", "pixabay2"][Int(random.next() % 4)]
                entry.page = Int(random.next() % 40)
                entry.firstListed = Int64(random.next() % 5)
                entry.lastListed = entry.firstListed + Int64(random.next() % 3)
                return entry
            }
        }
        func order(_ entries: [GroupEntry]) -> [UInt32] { entries.sorted(by: GroupTable.precedes).map(\.number) }
        for size in [2, 3, 17, 500] {
            var table = GroupTable()
            var first = groups(0..<UInt32(size))
            let expected = order(first)
            table.put(all: &first)
            #expect(first.isEmpty)
            #expect(table.entries.map(\.number) == expected, "size \(size)")
            var more = groups(UInt32(size)..<UInt32(2 * size))
            let all = order(table.entries + more)
            table.put(all: &more)
            #expect(more.isEmpty && table.entries.map(\.number) == all, "size \(size), added")
            for number in [0, UInt32(size), UInt32(2 * size - 1)] { #expect(table.entry(number)?.number == number) }
        }
    }
}

/// A table line's fields, compared by value whatever their order in the text.
private struct TableLineFields: Decodable, Equatable {
    var g: Int
    var fields: [String: String]

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        g = try container.decode(Int.self, forKey: Key(stringValue: "g"))
        var fields: [String: String] = [:]
        for key in container.allKeys {
            if let text = try? container.decode(String.self, forKey: key) {
                fields[key.stringValue] = text
            } else if let number = try? container.decode(Double.self, forKey: key) {
                fields[key.stringValue] = String(number)
            } else if let flag = try? container.decode(Bool.self, forKey: key) {
                fields[key.stringValue] = String(flag)
            } else if let map = try? container.decode([String: Int].self, forKey: key) {
                fields[key.stringValue] = map.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
            }
        }
        self.fields = fields
    }
}
