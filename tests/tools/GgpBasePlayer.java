import org.repackage.sancho_v1_61c.org.ggp.base.player.GamePlayer;
import org.repackage.sancho_v1_61c.org.ggp.base.player.gamer.Gamer;

/**
 * A sample gamer of ggp-base (as Sancho's jar ships it) served as a GGP player on PORT until killed.
 *
 * usage: java -cp CLASSPATH GgpBasePlayer.java PORT [GAMER], GAMER a class of ggp-base's
 * player.gamer.statemachine.sample package (default SampleMonteCarloGamer).
 */
public class GgpBasePlayer {
  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    String name = args.length > 1 ? args[1] : "SampleMonteCarloGamer";
    String prefix = "org.repackage.sancho_v1_61c.org.ggp.base.player.gamer.statemachine.sample.";
    Gamer gamer = (Gamer) Class.forName(prefix + name).getDeclaredConstructor().newInstance();
    GamePlayer player = new GamePlayer(port, gamer);
    System.err.println("GgpBasePlayer: " + name + " on port " + port);
    player.start();
    player.join();
  }
}
