import Foundation
import Testing
@testable import HibiApp

enum DiaryFixtures {
    static func data(_ name: String) throws -> Data {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/diary/\(name)")
        return try Data(contentsOf: url)
    }

    static func text(_ name: String) throws -> String { String(decoding: try data(name), as: UTF8.self) }

    static let photoName = "photos/cf80411fda6ba991b6110b2365fb8286.jpeg"
}

/// The pure readers on files the apps wrote (Tests/Fixtures/diary/SOURCES.md).
@Suite struct DiaryFormatTests {
    @Test func filesAreRecognisedByTheirContent() throws {
        #expect(ForeignDiary.detect(head: try DiaryFixtures.data("dayone-demo.json"), names: nil) == .dayOne)
        #expect(ForeignDiary.detect(head: try DiaryFixtures.data("daylio-staticf0x.csv"), names: nil) == .daylioCSV)
        #expect(ForeignDiary.detect(head: try DiaryFixtures.data("daylio-currin.csv"), names: nil) == .daylioCSV)
        #expect(ForeignDiary.detect(head: Data(#"{"format":"hibi-diary","version":1,"entries":[]}"#.utf8), names: nil) == .hibi)
        #expect(ForeignDiary.detect(head: Data(), names: ["diary.json", "photos/a.jpg"]) == .hibi)
        #expect(ForeignDiary.detect(head: Data(), names: ["Journal.json", "photos/a.jpeg"]) == .dayOne)
        #expect(ForeignDiary.detect(head: Data(), names: ["backup.daylio", "assets/photos/x"]) == .daylioBackup)
    }

    @Test func dayOneExportReadsTextDatesPhotosAndKeepsTheEntryWithoutText() throws {
        let read = try DayOneFormat.read(try DiaryFixtures.data("dayone-demo.json"), file: "Journal.json", journal: "Journal", tagJournal: false,
                                         archiveNames: [DiaryFixtures.photoName])
        #expect(read.entries.count == 4)
        #expect(read.skipped.isEmpty)
        let first = read.entries[0]
        // The photo reference is taken out of the text; the photo is attached by its identifier's md5 file.
        #expect(first.text == "# Initial entry\n\nsome text")
        #expect(first.photos.map(\.identifier) == ["D3456FD591A34C098719F1A0E6C46829"])
        #expect(first.photos.first?.candidates.first == DiaryFixtures.photoName)
        #expect(first.date == Date(timeIntervalSince1970: 1_552_914_296))
        #expect(first.modified == DayOneFormat.parseDate("2019-03-26T21:48:44Z"))
        #expect(first.details.timeZone == "Europe/Berlin")
        #expect(first.details.starred == false)
        #expect(first.details.journal == "Journal")
        #expect(first.tags.isEmpty)
        #expect(read.entries[2].text == #"# Third entry with double escapes\#n\#ndouble escape a\/b dot\. single escape slash/"#)
        // The last entry has neither text nor photo: read, and left to the import to refuse with its reason.
        #expect(read.entries[3].text.isEmpty)
        #expect(Set(read.entries.map(\.key)).count == 4)
    }

    @Test func dayOneLocationWeatherAndDamagedEntries() throws {
        let read = try DayOneFormat.read(try DiaryFixtures.data("dayone-written-location-weather.json"), file: "Travel.json", journal: "Travel",
                                         tagJournal: true, archiveNames: nil)
        #expect(read.entries.count == 1)
        #expect(read.skipped.map(\.at) == ["Travel.json entry 2 (1546F37361264E129200B2CA6A885855)", "Travel.json entry 3"])
        let entry = try #require(read.entries.first)
        // The journal tag and Day One's own "travel" are one tag (tags compare case-insensitively).
        #expect(entry.tags == ["Travel", "coffee"])
        #expect(entry.details.starred == true)
        #expect(entry.details.location?.label == "3 Soi Phetchaburi 13, Bangkok, Thailand")
        #expect(entry.details.weather?.summary == "Mostly Sunny, 26 °C, 54 %, 7 km/h")
        #expect(entry.sourceID == "81F0F3CA693F484792F76359E9E2ACE8")
    }

    @Test func daylioCSVTimesMoodsActivitiesAndDayRatings() throws {
        let zone = try #require(TimeZone(identifier: "Asia/Tokyo"))
        let read = DaylioFormat.readCSV(try DiaryFixtures.text("daylio-staticf0x.csv"), timeZone: zone)
        #expect(read.entries.count == 32)
        #expect(read.skipped.isEmpty)
        let first = read.entries[0]
        #expect(first.text == "Awesome")
        #expect(first.tags == ["friends", "gaming", "programming", "nap"])
        #expect(first.dayRating == .great)
        #expect(first.mood == .happiness)
        // 6:50 pm in Tokyo; "14:58" (24-hour) and "12:46 am" (just after midnight) read too.
        #expect(first.date == DaylioFormat.moment(day: try #require(DayKey("2020-05-30")), hour: 18, minute: 50, timeZone: zone))
        #expect(read.entries.contains { $0.position == "row 32" && $0.text == "Could be better" && $0.date == DaylioFormat.moment(day: try! #require(DayKey("2020-05-25")), hour: 14, minute: 58, timeZone: zone) })
        #expect(DaylioFormat.clockTime("12:46 am")! == (0, 46))
        #expect(DaylioFormat.clockTime("12:05 pm")! == (12, 5))
        #expect(DaylioFormat.clockTime("13:05 pm") == nil)
        // A mood-only entry still has words: its mood and activities.
        #expect(read.entries[2].text == "rad")
        // 25 May: bad, awful, awful, bad, meh, meh = 12 / 6 = 2 (bad); 27 May: 43 / 10 = 4.3 (good).
        let ratings = DaylioFormat.dayRatings(read.entries)
        #expect(ratings[try #require(DayKey("2020-05-25"))] == .bad)
        #expect(ratings[try #require(DayKey("2020-05-27"))] == .good)
        #expect(ratings[try #require(DayKey("2020-05-30"))] == .great)
        // Reading the same file again gives the same keys: a re-import adds nothing.
        #expect(DaylioFormat.readCSV(try DiaryFixtures.text("daylio-staticf0x.csv"), timeZone: zone).entries.map(\.key) == read.entries.map(\.key))
    }

    @Test func daylioCustomMoodsAndMoreActivitiesThanTagsLoseNothing() throws {
        let read = DaylioFormat.readCSV(try DiaryFixtures.text("daylio-currin.csv"), timeZone: .gmt)
        #expect(read.entries.count == 3)
        let sad = read.entries[0]
        // "sad" is not one of Daylio's five default names: no day rating, kept as a tag, and a confirmed mood (one to one).
        #expect(sad.dayRating == nil)
        #expect(sad.tags.first == "sad")
        #expect(sad.mood == .sadness)
        let busy = read.entries[1]
        #expect(busy.tags.count == DiaryRules.maxTags)
        #expect(busy.tags.first == "average")
        #expect(busy.text.hasSuffix("#tired #sleep early #stomachache"))
    }

    @Test func aDamagedRowIsSkippedWithItsNumberAndTheRestIsRead() {
        let csv = """
        full_date,date,weekday,time,mood,activities,note_title,note,scales
        2024-03-01,1 March,Friday,9:00 pm,good,work | reading,Title,"<p>Two</p><p>paragraphs, one ""quoted""</p>",Energy: 4
        2024-02-30,30 February,Friday,9:00 pm,good,,,,
        2024-03-02,2 March,Saturday,25:00,good,,,,
        2024-03-03,3 March,Sunday,7:15 AM,awful,,,,

        """
        let read = DaylioFormat.readCSV(csv, timeZone: .gmt)
        #expect(read.entries.map(\.position) == ["row 2", "row 5"])
        #expect(read.skipped.map(\.at) == ["row 3", "row 4"])
        #expect(read.entries[0].text == "Title\n\nTwo\nparagraphs, one \"quoted\"\n\nEnergy: 4")
        #expect(read.entries[1].dayRating == .awful)
        #expect(read.entries[1].date == Date(timeIntervalSince1970: 1_709_450_100))
    }

    @Test func htmlNotesBecomePlainText() {
        #expect(ForeignDiary.plainText(fromHTML: "<b>Good</b> day<br>walked &amp; read<ul><li>one</li><li>two</li></ul>") == "Good day\nwalked & read• one\n• two")
        #expect(ForeignDiary.plainText(fromHTML: "no tags") == "no tags")
    }

    @Test func contentKeysUseTheIDWhenThereIsOne() {
        #expect(ForeignDiary.contentKey(source: "dayone", id: "abc", localMinute: "x", text: "y") == ForeignDiary.contentKey(source: "dayone", id: "ABC", localMinute: "z", text: "w"))
        #expect(ForeignDiary.contentKey(source: "daylio", id: nil, localMinute: "2020-05-30 18:50", mood: "rad", text: "a")
            != ForeignDiary.contentKey(source: "daylio", id: nil, localMinute: "2020-05-30 18:51", mood: "rad", text: "a"))
    }
}

@Suite(.serialized) struct DiaryForeignImportTests {
    func api(_ browser: Browser) async throws -> APIClient {
        try await browser.setUp()
        return APIClient(browser: browser, token: try await browser.createToken())
    }

    func importFile(_ api: APIClient, _ data: Data, _ type: String) async throws -> (Browser.Page, DiaryImportReport) {
        try await api.importDiary(data, contentType: type)
    }

    @Test func dayOneZipImportsEverythingOnceAndReportsTheRest() async throws {
        try await TestApp.run { browser in
            let api = try await api(browser)
            let photo = try DiaryFixtures.data("dayone-demo-photo.jpeg")
            let zip = try StoredZipTests.archive([("Journal.json", try DiaryFixtures.data("dayone-demo.json")), (DiaryFixtures.photoName, photo),
                                                  ("Travel.json", try DiaryFixtures.data("dayone-written-location-weather.json")),
                                                  ("videos/0123.mov", Data("not really a video".utf8))])
            let (page, report) = try await importFile(api, zip, "application/zip")
            #expect(page.status == .ok, "\(page.body)")
            #expect(report.format == .dayOne)
            #expect(report.added == 4)
            #expect(report.photosAdded == 1)
            #expect(report.visitsAdded == 1)
            // The entry without text or photo, the unreadable date and the non-entry: each named with its reason.
            #expect(Set(report.skipped.map(\.at)) == ["Journal.json entry 4 (6BD0AE9E21C447A6BC504A63899BA544)",
                                                      "Travel.json entry 2 (1546F37361264E129200B2CA6A885855)", "Travel.json entry 3"])
            #expect(report.skipped.first { $0.at.hasPrefix("Journal.json entry 4") }?.ja.isEmpty == false)

            let entries = try APIClient.decode(DiaryEntryPage.self, try await api.call(.get, "/api/v1/diary/entries"))
            #expect(entries.total == 4)
            let withPhoto = try #require(entries.entries.first { $0.text == "# Initial entry\n\nsome text" })
            #expect(withPhoto.photos.count == 1)
            #expect(try await api.call(.get, try #require(withPhoto.photos.first).url).data == photo)
            #expect(withPhoto.date == Date(timeIntervalSince1970: 1_552_914_296))
            // Several journals in one archive: the journal's name is a tag.
            let travel = try #require(entries.entries.first { $0.text == "A day fixing bugs in a café." })
            #expect(travel.tags.contains("Travel"))
            #expect(travel.tags.contains("coffee"))

            // The place is a visit in the signed log, and the entry page shows it with the weather.
            let visits = try APIClient.decode([VisitResponse].self, try await api.call(.get, "/api/v1/visits"))
            #expect(visits.count == 1)
            #expect(visits.first?.latitude ?? 0 > 13.75)
            #expect(try await api.call(.get, "/api/v1/visits/verify").body.contains("true"))
            try await browser.unlockDiary()
            let entryPage = try await browser.get(DiaryPaths.entry(travel.id))
            #expect(entryPage.body.contains("Mostly Sunny, 26 °C"))
            #expect(entryPage.body.contains("3 Soi Phetchaburi 13"))
            #expect(entryPage.body.contains("Asia/Bangkok"))

            // Importing the same archive again adds nothing and says so.
            let (_, again) = try await importFile(api, zip, "application/zip")
            #expect(again.added == 0)
            #expect(again.alreadyThere == 4)
            #expect(again.visitsAdded == 0)
            #expect(try APIClient.decode(DiaryEntryPage.self, try await api.call(.get, "/api/v1/diary/entries")).total == 4)
        }
    }

    @Test func dayOneJSONAloneImportsTextAndReportsItsPhotoMissing() async throws {
        try await TestApp.run { browser in
            let api = try await api(browser)
            let (page, report) = try await importFile(api, try DiaryFixtures.data("dayone-demo.json"), "application/json")
            #expect(page.status == .ok, "\(page.body)")
            #expect(report.added == 3)
            #expect(report.photosSkipped == 1)
            #expect(report.skipped.contains { $0.code == "missing_file" })
        }
    }

    @Test func daylioCSVSetsDayRatingsMoodsAndTagsAndAReimportAddsNothing() async throws {
        try await TestApp.run { browser in
            let api = try await api(browser)
            // A rating the person chose stays.
            #expect(try await api.call(.put, "/api/v1/days/2020-05-30/rating", json: #"{"rating":1}"#).status == .ok)
            let csv = try DiaryFixtures.data("daylio-staticf0x.csv")
            let (page, report) = try await importFile(api, csv, "text/csv")
            #expect(page.status == .ok, "\(page.body)")
            #expect(report.format == .daylioCSV)
            #expect(report.added == 32)
            // Five days in the file; 30 May already had the person's own rating.
            #expect(report.dayRatingsSet == 4)
            #expect(try await api.call(.get, "/api/v1/days/2020-05-25").body.contains(#""rating":{"rating":2,"source":"chosen"}"#))
            #expect(try await api.call(.get, "/api/v1/days/2020-05-30").body.contains(#""rating":{"rating":1,"source":"chosen"}"#))
            let entries = try APIClient.decode(DiaryEntryPage.self, try await api.call(.get, "/api/v1/diary/entries?perPage=100"))
            let awesome = try #require(entries.entries.first { $0.text == "Awesome" })
            #expect(awesome.confirmedMood == .happiness)
            #expect(Set(awesome.tags) == ["friends", "gaming", "programming", "nap"])
            let (_, again) = try await importFile(api, csv, "text/csv")
            #expect(again.added == 0 && again.alreadyThere == 32 && again.dayRatingsSet == 0)
        }
    }

    @Test func daylioBackupWithCustomMoodsZeroBasedMonthsAndAPhoto() async throws {
        try await TestApp.run { browser in
            let api = try await api(browser)
            let json = """
            {"version":15,"customMoods":[{"id":1,"custom_name":"","mood_group_id":1,"predefined_name_id":1},
              {"id":7,"custom_name":"Sleepy","mood_group_id":3,"predefined_name_id":-1}],
             "tags":[{"id":3,"name":"reading"}],
             "dayEntries":[{"id":11,"minute":5,"hour":21,"day":31,"month":0,"year":2024,"datetime":1706702700000,"mood":7,"note":"Long <b>day</b>","note_title":"","tags":[3],"assets":[5]},
                           {"id":12,"minute":0,"hour":8,"day":1,"month":1,"year":2024,"mood":1,"note":"","tags":[],"assets":[]},
                           {"id":13,"minute":0,"hour":99,"day":1,"month":1,"year":2024,"mood":1},
                           {"id":14,"minute":0,"hour":9,"day":1,"month":9223372036854775807,"year":2024,"mood":1}],
             "assets":[{"id":5,"checksum":"abc123","type":1}]}
            """
            let zip = try StoredZipTests.archive([("backup.daylio", Data(Data(json.utf8).base64EncodedString().utf8)),
                                                  ("assets/photos/2024/1/abc123", TestImages.jpeg)])
            let (page, report) = try await importFile(api, zip, "application/zip")
            #expect(page.status == .ok, "\(page.body)")
            #expect(report.format == .daylioBackup)
            #expect(report.added == 2)
            #expect(report.photosAdded == 1)
            #expect(report.skipped.map(\.at) == ["backup.daylio entry 3 (id 13)", "backup.daylio entry 4 (id 14)"])
            let entries = try APIClient.decode(DiaryEntryPage.self, try await api.call(.get, "/api/v1/diary/entries"))
            let sleepy = try #require(entries.entries.first { $0.text == "Long day" })
            #expect(sleepy.tags == ["Sleepy", "reading"])
            #expect(sleepy.photos.count == 1)
            // Month 0 is January; the group of "Sleepy" (3, meh) rates the day.
            #expect(try await api.call(.get, "/api/v1/days/2024-01-31").body.contains(#""rating":{"rating":3,"source":"chosen"}"#))
            #expect(try await api.call(.get, "/api/v1/days/2024-02-01").body.contains(#""rating":{"rating":5,"source":"chosen"}"#))
        }
    }

    /// Written in the shape of Journey's JSON export (field names and the "no value" doubles as in a real
    /// export seen in andi0b/journey-markdown-converter's test data, which is GPL-3.0 and not copied here).
    @Test func journeyZipOneEntryPerFileWithPhotosPlaceAndWeather() async throws {
        try await TestApp.run { browser in
            let api = try await api(browser)
            let withPlace = #"{"id":"1625494143867-82d3goucmybxlxat","date_modified":1625494153763,"date_journal":1624802943000,"timezone":"Europe/Vienna","text":"<p dir=\"auto\">A walk by the <strong>palace</strong></p>","preview_text":"","mood":0,"lat":51.50207694110725,"lon":-0.1400151598051018,"address":"1 Constitution Hill ","label":"","folder":"","sentiment":0,"favourite":true,"music_title":"","music_artist":"","photos":[],"weather":{"id":-1,"degree_c":27.2,"description":"Scattered Clouds","icon":"02d","place":"Terminus"},"tags":["walk"],"type":"html"}"#
            let withPhoto = #"{"id":"1625494049547-4BbDhzcByTFSg6MW","date_modified":1625494100149,"date_journal":1625133600000,"timezone":"Europe/Vienna","text":"Markdown **entry**","mood":0,"lat":1.7976931348623157e+308,"lon":1.7976931348623157e+308,"address":"","favourite":false,"photos":["1625494049547-4BbDhzcByTFSg6MW-5bkOJACgIzl36wsU.jpg"],"weather":{"id":-1,"degree_c":1.7976931348623157e+308,"description":"","icon":"","place":""},"tags":[],"type":"markdown"}"#
            let zip = try StoredZipTests.archive([("1625494143867-82d3goucmybxlxat.json", Data(withPlace.utf8)),
                                                  ("1625494049547-4BbDhzcByTFSg6MW.json", Data(withPhoto.utf8)),
                                                  ("1625494049547-4BbDhzcByTFSg6MW-5bkOJACgIzl36wsU.jpg", TestImages.jpeg),
                                                  ("1700000000000-broken.json", Data(#"{"id":"broken","date_journal":"#.utf8))])
            let (page, report) = try await importFile(api, zip, "application/zip")
            #expect(page.status == .ok, "\(page.body)")
            #expect(report.format == .journey)
            #expect(report.added == 2 && report.photosAdded == 1 && report.visitsAdded == 1)
            #expect(report.skipped.map(\.at) == ["1700000000000-broken.json"])
            let entries = try APIClient.decode(DiaryEntryPage.self, try await api.call(.get, "/api/v1/diary/entries")).entries
            let walk = try #require(entries.first { $0.text == "A walk by the palace" })
            #expect(walk.tags == ["walk"])
            #expect(walk.date == Date(timeIntervalSince1970: 1_624_802_943))
            let photo = try #require(entries.first { $0.text == "Markdown **entry**" })
            #expect(try await api.call(.get, try #require(photo.photos.first).url).data == TestImages.jpeg)
            try await browser.unlockDiary()
            let detail = try await browser.get(DiaryPaths.entry(walk.id))
            #expect(detail.body.contains("Scattered Clouds, 27 °C"))
            #expect(detail.body.contains("1 Constitution Hill"))
            // The absent place and temperature (the largest double) are not shown as a place or weather.
            #expect(!(try await browser.get(DiaryPaths.entry(photo.id))).body.contains("entry-weather"))
            let (_, again) = try await importFile(api, zip, "application/zip")
            #expect(again.added == 0 && again.alreadyThere == 2)
        }
    }

    @Test func thePageImportsADaylioFileAndListsWhatItSkipped() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            try await browser.unlockDiary()
            try await browser.get("/diary/data")
            let csv = Data("full_date,date,weekday,time,mood,activities,note_title,note\n2024-03-01,1 March,Friday,9:00 pm,good,work,,Fine\n2024-03-02,2 March,Saturday,25:00,good,,,\n".utf8)
            let page = try await browser.postMultipart("/diary/import", fields: [:], files: ["file": ("daylio_export.csv", csv)])
            #expect(page.status == .ok)
            #expect(page.body.contains("Daylio (CSV): 1 added, 0 already there, 1 skipped."))
            #expect(page.body.contains("row 3: date or time that cannot be read"))
            try await browser.post("/language", form: ["language": "ja"])
            try await browser.get("/diary/data")
            let again = try await browser.postMultipart("/diary/import", fields: [:], files: ["file": ("daylio_export.csv", csv)])
            #expect(again.body.contains("Daylio (CSV): 0 件追加、1 件は既にあります、1 件スキップ。"))
            #expect(again.body.contains("3 行目: 読めない日付または時刻"))
        }
    }

    @Test func importingNeedsTheDiaryScopeOrAnUnlockedDiary() async throws {
        try await TestApp.run { browser in
            try await browser.setUp()
            let noDiary = APIClient(browser: browser, token: try await browser.createToken(name: "no diary", scopes: .standard))
            let csv = try DiaryFixtures.data("daylio-staticf0x.csv")
            let refused = try await noDiary.call(.post, "/api/v1/diary/import", body: csv, contentType: "text/csv")
            #expect(refused.status == .forbidden)
            let api = APIClient(browser: browser, token: try await browser.createToken())
            #expect(try APIClient.decode(DiaryEntryPage.self, try await api.call(.get, "/api/v1/diary/entries")).total == 0)
        }
    }

    @Test func hibisDayOneExportReadsBackAsTheSameEntriesAndPhotos() async throws {
        try await TestApp.run { browser in
            let api = try await api(browser)
            let texts = ["first line\n\n  indented, with trailing spaces  \nlast", "日本語の日記 ✨ ![](not a moment)", ""]
            _ = try await api.call(.post, "/api/v1/diary/entries", json: #"{"date":"2026-10-01T08:00:00Z","text":"\#(texts[0].replacingOccurrences(of: "\n", with: "\\n"))","tags":["a","b"]}"#)
            _ = try await api.call(.post, "/api/v1/diary/entries", json: #"{"date":"2026-10-02T08:00:00Z","text":"\#(texts[1])","photos":["\#(TestImages.jpeg.base64EncodedString())","\#(TestImages.png.base64EncodedString())"]}"#)
            _ = try await api.call(.post, "/api/v1/diary/entries", json: #"{"date":"2026-10-03T08:00:00Z","text":"","photo":"\#(TestImages.png.base64EncodedString())"}"#)
            // Day One data brought in earlier goes out again with its place and weather.
            _ = try await importFile(api, try DiaryFixtures.data("dayone-written-location-weather.json"), "application/json")
            let before = try APIClient.decode(DiaryEntryPage.self, try await api.call(.get, "/api/v1/diary/entries")).entries
            #expect(before.count == 4)

            let export = try await api.call(.get, "/api/v1/diary/export?format=dayone")
            #expect(export.status == .ok)
            let archive = try ZipReader(data: export.data, maxTotalBytes: 1 << 30)
            #expect(archive.entries.keys.contains("Journal.json"))
            #expect(archive.entries.keys.filter { $0.hasPrefix("photos/") }.count == 2, "the PNG is stored once, by its MD5")
            let journal = String(decoding: try #require(try archive.contents(of: "Journal.json")), as: UTF8.self)
            #expect(journal.contains("Mostly Sunny"))
            #expect(journal.contains("3 Soi Phetchaburi 13"))

            // Into the same diary: everything is already there.
            let (_, same) = try await importFile(api, export.data, "application/zip")
            #expect(same.added == 0 && same.alreadyThere == 4)

            // Into an emptied diary: the same entries, text byte for byte, the same photos in order.
            for entry in before { _ = try await api.call(.delete, "/api/v1/diary/entries/\(entry.id)") }
            let (_, back) = try await importFile(api, export.data, "application/zip")
            #expect(back.added == 4 && back.skipped.isEmpty && back.photosAdded == 3)
            let after = try APIClient.decode(DiaryEntryPage.self, try await api.call(.get, "/api/v1/diary/entries")).entries
            #expect(after.map(\.text) == before.map(\.text))
            #expect(after.map(\.date) == before.map(\.date))
            #expect(after.map { Set($0.tags) } == before.map { Set($0.tags) })
            #expect(after.map(\.photos.count) == before.map(\.photos.count))
            let photoEntry = try #require(after.first { $0.text == texts[1] })
            #expect(try await api.call(.get, photoEntry.photos[0].url).data == TestImages.jpeg)
            #expect(try await api.call(.get, photoEntry.photos[1].url).data == TestImages.png)
            #expect(try await api.call(.get, try #require(after.first { $0.text.isEmpty }?.photos.first).url).data == TestImages.png)
            try await browser.unlockDiary()
            let page = try await browser.get(DiaryPaths.entry(try #require(after.first { $0.text.contains("café") }).id))
            #expect(page.body.contains("Mostly Sunny"))
            #expect(page.body.contains("★"))
        }
    }

    @Test func daylioCSVExportReadsBackWithItsRatings() async throws {
        try await TestApp.run { browser in
            let api = try await api(browser)
            _ = try await importFile(api, try DiaryFixtures.data("daylio-staticf0x.csv"), "text/csv")
            let csv = try await api.call(.get, "/api/v1/diary/export?format=daylio")
            #expect(csv.status == .ok)
            #expect(csv.body.hasPrefix("full_date,date,weekday,time,mood,activities,note_title,note\n"))
            #expect(csv.body.contains("2020-05-25,25 May,Monday,2:58 pm,bad,work,,Could be better"))
            // Read back as Daylio's own file: the same ratings and moods.
            let read = DaylioFormat.readCSV(csv.body, timeZone: try #require(TimeZone(identifier: "Asia/Tokyo")))
            #expect(read.entries.count == 32 && read.skipped.isEmpty)
            #expect(DaylioFormat.dayRatings(read.entries) == DaylioFormat.dayRatings(DaylioFormat.readCSV(try DiaryFixtures.text("daylio-staticf0x.csv"), timeZone: .gmt).entries))
            #expect(try await api.call(.get, "/api/v1/diary/export?format=journey").status == .badRequest)
        }
    }
}
