package io.countercache.cli;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

import javax.xml.parsers.DocumentBuilderFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** countercache-bom manages every published module of the build, at the build's version, and nothing else. */
class BomTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void theBomListsEveryPublishedModuleAtTheBuildsVersion() throws Exception {
        Document parent = read(ROOT.resolve("pom.xml"));
        Document bom = read(ROOT.resolve("bom/pom.xml"));
        assertThat(text(bom.getDocumentElement(), "version")).as("the BOM's version")
                .isEqualTo(text(parent.getDocumentElement(), "version"));
        List<String> published = new ArrayList<>();
        for (String module : children(parent.getDocumentElement(), "modules", "module")) {
            Document pom = read(ROOT.resolve(module).resolve("pom.xml"));
            String artifact = text(pom.getDocumentElement(), "artifactId");
            boolean skipped = pom.getElementsByTagName("maven.deploy.skip").getLength() > 0;
            if (!module.equals("bom") && !skipped) {
                published.add(artifact);
            }
        }
        List<String> managed = new ArrayList<>();
        for (Node n = first(first(bom.getDocumentElement(), "dependencyManagement"), "dependencies").getFirstChild();
             n != null; n = n.getNextSibling()) {
            if (n instanceof Element d) {
                managed.add(text(d, "artifactId"));
                assertThat(text(d, "version")).isEqualTo("${project.version}");
            }
        }
        assertThat(managed).containsExactlyInAnyOrderElementsOf(published);
    }

    /** What a repository manager such as Central requires of every POM; the BOM, with no parent, repeats it. */
    @Test
    void theParentAndTheBomCarryTheReleaseMetadata() throws Exception {
        for (String pom : List.of("pom.xml", "bom/pom.xml")) {
            Element project = read(ROOT.resolve(pom)).getDocumentElement();
            for (String required : List.of("name", "description", "url")) {
                assertThat(text(project, required)).as(pom + " " + required).isNotBlank();
            }
            assertThat(text(first(first(project, "licenses"), "license"), "name")).as(pom).isEqualTo("Apache-2.0");
            assertThat(text(first(first(project, "developers"), "developer"), "name")).as(pom).isNotBlank();
            assertThat(text(first(project, "scm"), "connection")).as(pom).startsWith("scm:git:");
        }
        assertThat(ROOT.resolve("LICENSE")).content().contains("Apache License", "Version 2.0");
    }

    private static Document read(Path file) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile());
    }

    private static Element first(Element parent, String name) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                return e;
            }
        }
        throw new AssertionError(parent.getTagName() + " has no " + name);
    }

    private static String text(Element parent, String name) {
        return first(parent, name).getTextContent().strip();
    }

    private static List<String> children(Element parent, String list, String item) {
        List<String> out = new ArrayList<>();
        for (Node n = first(parent, list).getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(item)) {
                out.add(e.getTextContent().strip());
            }
        }
        return out;
    }
}
